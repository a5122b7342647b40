// The events the SDK sends, and how a thrown value becomes one.
// Only zod-free subpaths of the domain are imported at runtime: the package root would bring zod into the bundle.
import type { EventInput } from '@collector/domain';
import { computeFingerprint } from '@collector/domain/fingerprint';
import { eventFieldChars, limits } from '@collector/domain/limits';

export type BreadcrumbLevel = 'debug' | 'info' | 'warning' | 'error';

export interface Breadcrumb {
  timestamp?: number;
  category?: string;
  message?: string;
  level?: BreadcrumbLevel | (string & {});
  data?: Record<string, unknown>;
}

export interface RequestInfo {
  method: string;
  url: string;
  /** 0 when the request got no answer (network error, CORS, timeout). */
  status?: number;
  durationMs?: number;
}

/** One event as POST /api/events/batch takes it; what `beforeSend` receives and may change. */
export interface CollectorEvent {
  eventId: string;
  type: 'error' | 'request';
  timestamp: number;
  platform?: string;
  sdkVersion?: string;
  sessionId?: string;
  anonymousId?: string;
  errorType?: string;
  message?: string;
  stack?: string;
  fingerprint?: string;
  breadcrumbs?: Breadcrumb[];
  request?: RequestInfo;
  url?: string;
  userAgent?: string;
  release?: string;
  environment?: string;
  /** Set with setTag / setUser / setContext / setExtra: sent with every event from then on (the server bounds them). */
  tags?: Record<string, string>;
  user?: EventUser;
  contexts?: Record<string, Record<string, unknown>>;
  extra?: Record<string, unknown>;
}

/** Who was using the page: shown on the issue. The anonymous id keeps counting users whether or not this is set. */
export interface EventUser {
  id?: string;
  email?: string;
  username?: string;
}

// Compile-time guard: if the server's event schema changes in a way the SDK's events no longer fit, this stops the
// typecheck. Type-only, so nothing of the schema (or zod) reaches the bundle.
type Fits<T extends EventInput> = T;
// biome-ignore lint/correctness/noUnusedVariables: the guard is the type check itself; nothing reads it
type CheckedEvent = Fits<CollectorEvent>;

/** Bounds the server enforces (a longer url or userAgent would reject the event) and sizes that keep a beacon small. */
export const fieldLimits = {
  errorType: eventFieldChars.errorType,
  /** The server keeps 8 KiB of UTF-8 and cuts the rest; grouping reads 2,048 characters. */
  message: limits.messageBytes,
  /** The server keeps 64 KiB; grouping reads 100 lines. 16 Ki characters keeps an event under a beacon's budget. */
  stack: 16 * 1024,
  url: eventFieldChars.url,
  userAgent: eventFieldChars.userAgent,
  release: eventFieldChars.release,
  environment: eventFieldChars.environment,
} as const;

/** Cuts to `max` UTF-16 units without leaving half a surrogate pair behind. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

export interface ErrorFields {
  errorType: string;
  message: string;
  stack?: string;
}

/** The page's own objects may have throwing getters or be proxies; reading them must never throw into the SDK. */
function read(value: object, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** A short printable form of any value: for messages of non-Error throws and console breadcrumbs. */
export function describeValue(value: unknown, max = 1024): string {
  if (typeof value === 'string') return truncate(value, max);
  if (value === null || typeof value !== 'object') return truncate(String(value), max);
  if (isErrorLike(value))
    return truncate(`${String(read(value, 'name') || 'Error')}: ${String(read(value, 'message'))}`, max);
  try {
    return truncate(JSON.stringify(value) ?? String(value), max);
  } catch {
    return truncate(Object.prototype.toString.call(value), max);
  }
}

function isErrorLike(value: object): boolean {
  return (
    value instanceof Error ||
    (typeof read(value, 'message') === 'string' &&
      (typeof read(value, 'stack') === 'string' || typeof read(value, 'name') === 'string'))
  );
}

/**
 * What an issue needs from a thrown value. Errors give their own name, message and stack; anything else thrown
 * (a string, an object, undefined) is described, under `fallbackType` (the server groups it by that message).
 */
export function errorFieldsOf(value: unknown, fallbackType = 'Error'): ErrorFields {
  if (typeof value === 'object' && value !== null && isErrorLike(value)) {
    const name = read(value, 'name');
    const message = read(value, 'message');
    const stack = read(value, 'stack');
    const fields: ErrorFields = {
      errorType: truncate(typeof name === 'string' && name ? name : fallbackType, fieldLimits.errorType),
      message: truncate(typeof message === 'string' ? message : '', fieldLimits.message),
    };
    if (typeof stack === 'string' && stack) fields.stack = truncate(stack, fieldLimits.stack);
    return fields;
  }
  const message = typeof value === 'string' ? value : `Non-Error value: ${describeValue(value)}`;
  return { errorType: fallbackType, message: truncate(message, fieldLimits.message) };
}

/** The fingerprint the server would compute for this event (it uses the same function when none is sent). */
export function fingerprintOf(
  event: Pick<CollectorEvent, 'type' | 'errorType' | 'message' | 'stack' | 'request'>,
): string {
  return computeFingerprint({
    errorType: event.errorType ?? event.type,
    message: event.message,
    stack: event.stack,
    request: event.request,
  });
}

export { computeFingerprint };
