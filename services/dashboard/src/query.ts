// Loading data for a screen: the state of one call, kept until the next one answers, and a way to ask again.
import { type DependencyList, useCallback, useEffect, useState } from 'react';
import { endSessionIfRefused, messageOf } from './api';

export type Query<T> =
  | { status: 'loading'; data: T | undefined; error?: undefined; reload: () => void }
  | { status: 'ok'; data: T; error?: undefined; reload: () => void }
  | { status: 'error'; data: T | undefined; error: string; reload: () => void };

export function useQuery<T>(load: () => Promise<T>, dependencies: DependencyList): Query<T> {
  const [state, setState] = useState<{ status: 'loading' | 'ok' | 'error'; data: T | undefined; error?: string }>({
    status: 'loading',
    data: undefined,
  });
  const [attempt, setAttempt] = useState(0);
  const reload = useCallback(() => setAttempt((value) => value + 1), []);

  // The dependencies are the caller's: it lists what `load` reads (a new `load` each render must not reload).
  useEffect(() => {
    let current = true;
    setState((previous) => ({ status: 'loading', data: previous.data }));
    load().then(
      (data) => current && setState({ status: 'ok', data }),
      (error: unknown) => {
        if (!current) return;
        endSessionIfRefused(error);
        setState((previous) => ({ status: 'error', data: previous.data, error: messageOf(error) }));
      },
    );
    return () => {
      current = false;
    };
  }, [...dependencies, attempt]);

  return { ...state, reload } as Query<T>;
}
