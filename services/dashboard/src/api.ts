// The dashboard's one way to the collector: the typed client, the session token it sends, and the shapes it returns.
import { type CollectorClient, type CollectorOutputs, createCollectorClient, errorCodeOf, isCollectorError } from '@collector/client';
import { appTypes as domainAppTypes } from '@collector/domain/app';

// The token lives in memory and in sessionStorage (so a reload keeps the tab signed in, and closing the tab
// forgets it); never in a URL, a cookie or localStorage.
const TOKEN_KEY = 'collector.session';

function storage(): Storage | undefined {
  try {
    return window.sessionStorage;
  } catch {
    return undefined; // storage disabled: the session lasts as long as the page
  }
}

let token: string | undefined = storage()?.getItem(TOKEN_KEY) ?? undefined;
let notice: string | undefined;
const listeners = new Set<() => void>();

export const session = {
  get token() {
    return token;
  },
  /** Why the last session ended, when the user did not end it (shown on the sign-in screen). */
  get notice() {
    return notice;
  },
  start(newToken: string) {
    notice = undefined;
    token = newToken;
    storage()?.setItem(TOKEN_KEY, newToken);
    for (const listener of listeners) listener();
  },
  end(reason?: string) {
    notice = reason;
    token = undefined;
    storage()?.removeItem(TOKEN_KEY);
    for (const listener of listeners) listener();
  },
  subscribe(listener: () => void) {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

export const client: CollectorClient = createCollectorClient({ baseUrl: window.location.origin, token: () => token });

export type User = CollectorOutputs['auth']['me']['user'];
export type App = CollectorOutputs['apps']['list']['apps'][number];
export type AppType = App['type'];
export type Totals = CollectorOutputs['overview']['get']['totals'];
export type Timeseries = CollectorOutputs['overview']['timeseries'];
export type IssuePage = CollectorOutputs['issues']['list'];
export type Issue = IssuePage['issues'][number];
export type IssueDetail = CollectorOutputs['issues']['get'];
export type StoredEvent = IssueDetail['events'][number];
export type Outcome = CollectorOutputs['outcomes']['get']['outcomes'][number];

/** Every app type the API takes, in the order the form offers them; checked against the API's own type. */
export const appTypes: readonly AppType[] = domainAppTypes;

/** What to tell the user about a failed call: the API's own message, or that the collector did not answer. */
export function messageOf(error: unknown): string {
  if (isCollectorError(error) && error.code === 'NETWORK_ERROR') return `Could not reach the collector (${error.message}). Is it running?`;
  if (error instanceof Error) return error.message;
  return String(error);
}

/** A call refused for want of a valid session ends it: the user is asked to sign in again. */
export function endSessionIfRefused(error: unknown): void {
  if (errorCodeOf(error) === 'UNAUTHENTICATED' && token !== undefined) session.end('Your session has ended. Sign in again.');
}
