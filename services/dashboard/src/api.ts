// The dashboard's one way to the collector: the typed client, the session token it sends, and the shapes it returns.
import {
  type CollectorClient,
  type CollectorOutputs,
  createCollectorClient,
  errorCodeOf,
  isCollectorError,
} from '@collector/client';
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

export type { CollectorInputs } from '@collector/client';
export type User = CollectorOutputs['auth']['me']['user'];
export type App = CollectorOutputs['apps']['list']['apps'][number];
export type AppType = App['type'];
export type Totals = CollectorOutputs['overview']['get']['totals'];
export type Timeseries = CollectorOutputs['overview']['timeseries'];
type IssuePage = CollectorOutputs['issues']['list'];
export type Issue = IssuePage['issues'][number];
type IssueDetail = CollectorOutputs['issues']['get'];
export type StoredEvent = IssueDetail['events'][number];
export type IssueStatus = Issue['status'];
export type Breakdown = IssueDetail['breakdown'];
export type AlertRule = CollectorOutputs['alerts']['list']['alerts'][number];
export type AlertTrigger = AlertRule['trigger'];
export type AlertDelivery = CollectorOutputs['alerts']['deliveries']['deliveries'][number];
export type AppRelease = CollectorOutputs['releases']['list']['releases'][number];
export type Outcome = CollectorOutputs['outcomes']['get']['outcomes'][number];
export type Feedback = CollectorOutputs['feedback']['list']['feedback'][number];
export type Org = CollectorOutputs['orgs']['list']['orgs'][number];
export type OrgRole = Org['role'];
export type ApiToken = CollectorOutputs['tokens']['list']['tokens'][number];
export type ActivityEntry = CollectorOutputs['issues']['activity']['activity'][number];
export type IssueFacets = CollectorOutputs['issues']['facets'];

/** Every app type the API takes, in the order the form offers them; checked against the API's own type. */
export const appTypes: readonly AppType[] = domainAppTypes;

/** Fields as the screens name them: by the API's whole path (`channel.url`), else by its first part. */
const fieldNames: Record<string, string> = {
  email: 'E-mail',
  password: 'Password',
  name: 'Name',
  type: 'Type',
  q: 'Search',
  release: 'Release',
  environment: 'Environment',
  'channel.url': 'The webhook URL',
  'channel.to': 'The e-mail address',
  'spike.events': 'The number of events',
  'spike.minutes': 'The number of minutes',
  spike: 'The spike',
  channel: 'The channel',
};

/** One problem with one field, as a sentence for people rather than the API's `path: message`. */
function sentenceFor(path: string, message: string): string {
  if (path === 'password' && message.includes('most common'))
    return 'That password is too common: pick a longer or less predictable one.';
  if (path === 'password') return 'The password needs 8 to 128 characters.';
  if (path === 'email') return 'That does not look like an e-mail address.';
  if (path === 'name') return 'Give the app a name of 1 to 100 characters.';
  // The collector's reason is a sentence of its own ("e-mail alerts need an SMTP server: ..."), not a predicate.
  if (path === 'channel.type') return `${message.charAt(0).toUpperCase()}${message.slice(1)}.`;
  const field = fieldNames[path] ?? fieldNames[path.split('.')[0] ?? ''] ?? 'A value';
  return `${field} ${message}.`.replace(/\.\.$/, '.');
}

/** What to tell the user about a failed call, in their words: never a field path or an error code. */
export function messageOf(error: unknown): string {
  if (isCollectorError(error)) {
    switch (error.code) {
      case 'NETWORK_ERROR':
        return 'Could not reach the collector. Check your connection, or whether it is running, and try again.';
      case 'INVALID_CREDENTIALS':
        return 'That e-mail and password do not match an account.';
      case 'EMAIL_TAKEN':
        return 'There is already an account with that e-mail. Sign in instead.';
      case 'RATE_LIMITED':
        return `Too many attempts. Try again in ${error.retryAfterSeconds ? countOfSeconds(error.retryAfterSeconds) : 'a minute'}.`;
      case 'UNAVAILABLE':
        // The database away, or the collector at its limit of request bodies in flight (a flood of ingestion).
        return 'The collector is busy or cannot reach its database right now. Try again in a moment.';
      case 'FORBIDDEN':
        return 'Your role in this organization does not allow this. An owner or admin can do it, or change your role.';
      case 'CONFLICT':
        return error.details[0]?.message
          ? `That cannot be done: ${error.details[0].path ? `${error.details[0].path} ` : ''}${error.details[0].message}.`
          : 'That cannot be done in the current state.';
      case 'NOT_FOUND':
        return 'It does not exist, or it belongs to another account.';
      case 'INTERNAL':
        return 'The collector failed to answer this (a bug on its side). Try again; if it keeps failing, tell whoever runs it.';
      case 'VALIDATION_FAILED':
        if (error.details.length > 0)
          return error.details.map((detail) => sentenceFor(detail.path, detail.message)).join(' ');
        break;
    }
  }
  if (error instanceof Error) return error.message;
  return String(error);
}

const countOfSeconds = (seconds: number) =>
  seconds < 90 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`;

/** A call refused for want of a valid session ends it: the user is asked to sign in again. */
export function endSessionIfRefused(error: unknown): void {
  if (errorCodeOf(error) === 'UNAUTHENTICATED' && token !== undefined)
    session.end('Your session has ended. Sign in again.');
}
