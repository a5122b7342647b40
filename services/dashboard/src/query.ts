// Loading data for a screen: the state of one call, kept until the next one answers, asked again by itself while the
// collector says it is busy (503), and a way to ask again.
import { type DependencyList, useCallback, useEffect, useState } from 'react';
import { endSessionIfRefused, messageOf } from './api';
import { retryDelayMs } from './retry';

/** `retrying`: the collector answered 503 and the call is asked again after its Retry-After (retry.ts). */
export type Query<T> =
  | { status: 'loading'; data: T | undefined; error?: undefined; retrying?: boolean; reload: () => void }
  | { status: 'ok'; data: T; error?: undefined; retrying?: undefined; reload: () => void }
  | { status: 'error'; data: T | undefined; error: string; retrying?: undefined; reload: () => void };

export function useQuery<T>(load: () => Promise<T>, dependencies: DependencyList): Query<T> {
  const [state, setState] = useState<{
    status: 'loading' | 'ok' | 'error';
    data: T | undefined;
    error?: string;
    retrying?: boolean;
  }>({ status: 'loading', data: undefined });
  const [attempt, setAttempt] = useState(0);
  const reload = useCallback(() => setAttempt((value) => value + 1), []);

  // The dependencies are the caller's: it lists what `load` reads (a new `load` each render must not reload).
  useEffect(() => {
    let current = true;
    let wait: ReturnType<typeof setTimeout> | undefined;
    const ask = (retries: number) =>
      load().then(
        (data) => current && setState({ status: 'ok', data }),
        (error: unknown) => {
          if (!current) return;
          const delay = retryDelayMs(error, retries);
          if (delay !== undefined) {
            setState((previous) => ({ status: 'loading', data: previous.data, retrying: true }));
            wait = setTimeout(() => ask(retries + 1), delay);
            return;
          }
          endSessionIfRefused(error);
          setState((previous) => ({ status: 'error', data: previous.data, error: messageOf(error) }));
        },
      );
    setState((previous) => ({ status: 'loading', data: previous.data }));
    ask(0);
    return () => {
      current = false;
      clearTimeout(wait);
    };
  }, [...dependencies, attempt]);

  return { ...state, reload } as Query<T>;
}
