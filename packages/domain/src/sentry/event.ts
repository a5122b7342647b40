// A Sentry event (what Sentry's SDKs send in an envelope's `event` item or to /store/) as the collector's raw event.
// Pure: the result is judged by `judgeEvent` exactly like an event of the batch endpoint, so every bound, the
// fingerprint and the timestamp clamp are applied in one place. Fields the collector has no place for are left out.
import { type EventLevel, eventLevels } from '../event';
import { computeFingerprint, fingerprintPrefix, hash64 } from '../fingerprint';
import { eventFieldChars, limits } from '../limits';

type Json = Record<string, unknown>;

export interface SentryMappingContext {
  /** When the request arrived: the timestamp of an event that has none. */
  receivedAt: number;
  /** Used when the event has no `event_id` of its own (the envelope header's, or one generated). */
  eventId: string;
}

/** Sentry's HTTP client integrations mark the errors they make for failed requests with these mechanisms. */
const HTTP_CLIENT_MECHANISM = 'auto.http.client';

/** Stands, in a client fingerprint list, for the grouping the server would do on its own. */
const DEFAULT_FINGERPRINT = '{{ default }}';

const MESSAGE_ERROR_TYPE = 'Message';

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const objectAt = (value: unknown): Json | undefined => (isObject(value) ? value : undefined);
const stringAt = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;
const integerAt = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
const clip = (text: string | undefined, maxChars: number) => (text === undefined ? undefined : text.slice(0, maxChars));

/** `[...]` or `{ values: [...] }`: Sentry takes both for exceptions and breadcrumbs. */
function listAt(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  const values = objectAt(value)?.values;
  return Array.isArray(values) ? values : [];
}

// RFC 3339 as SDKs write it: a date, a time, optional fraction, and a zone (Python writes none: it means UTC).
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})?$/;

/** Milliseconds from float seconds since the epoch or an RFC 3339 string; undefined for anything else. */
export function sentryTimestamp(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.round(value * 1000) : undefined;
  if (typeof value !== 'string' || !RFC3339.test(value)) return undefined;
  const zoned = /([Zz]|[+-]\d{2}:\d{2})$/.test(value) ? value : `${value}Z`;
  const ms = Date.parse(zoned);
  return Number.isFinite(ms) ? ms : undefined;
}

/** Sentry's levels, with the spellings older SDKs use folded in; anything else is left out. */
function levelOf(value: unknown): EventLevel | undefined {
  const level = stringAt(value)?.toLowerCase();
  if (level === 'warn') return 'warning';
  if (level === 'critical') return 'fatal';
  if (level === 'log') return 'info';
  return (eventLevels as readonly string[]).includes(level ?? '') ? (level as EventLevel) : undefined;
}

/**
 * Letters, digits and - kept, every other character written as _xxxx (its UTF-16 code in hex), so distinct ids stay
 * distinct ("a.b" is not "a_b") within the collector's id pattern; ids too long for the pattern are hashed.
 */
export function anonymousIdFor(id: string): string {
  const escaped = id.replace(/[^A-Za-z0-9-]/g, (char) => `_${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return escaped.length <= 128 ? `anon_${escaped}` : `anon_h${hash64(id)}`;
}

/** user.id, else user.email, else user.ip_address ("{{auto}}" is Sentry's placeholder for the sender's address, not one). */
function anonymousIdOf(user: Json | undefined): string | undefined {
  if (!user) return undefined;
  const id = typeof user.id === 'number' && Number.isFinite(user.id) ? String(user.id) : stringAt(user.id);
  const ip = stringAt(user.ip_address);
  const chosen = id ?? stringAt(user.email) ?? (ip === '{{auto}}' ? undefined : ip);
  return chosen === undefined ? undefined : anonymousIdFor(chosen);
}

interface MappedFrame {
  function?: string;
  file?: string;
  line?: number;
  column?: number;
  inApp?: boolean;
}

/** Sentry lists frames outermost first; the collector keeps them innermost first, as stack texts read. */
function framesOf(exception: Json | undefined): MappedFrame[] {
  const frames = objectAt(exception?.stacktrace)?.frames;
  if (!Array.isArray(frames)) return [];
  const mapped: MappedFrame[] = [];
  for (let i = frames.length - 1; i >= 0 && mapped.length < limits.stackFrames; i--) {
    const frame = objectAt(frames[i]);
    if (!frame) continue;
    const fn = clip(stringAt(frame.function), limits.frameFunctionChars);
    const file = clip(
      stringAt(frame.filename) ?? stringAt(frame.abs_path) ?? stringAt(frame.module),
      limits.frameFileChars,
    );
    const line = integerAt(frame.lineno);
    const column = integerAt(frame.colno);
    // Assigned field by field rather than spread from five conditional objects: a frame is mapped per stack line of
    // every Sentry event, and the spreads were 4% of the envelope endpoint's CPU in a profile.
    const one: MappedFrame = {};
    if (fn !== undefined) one.function = fn;
    if (file !== undefined) one.file = file;
    if (line !== undefined) one.line = line;
    if (column !== undefined) one.column = column;
    if (typeof frame.in_app === 'boolean') one.inApp = frame.in_app;
    mapped.push(one);
  }
  return mapped;
}

/** A frame as a V8 stack line, the form the fingerprint's frame reader and people both read. */
function frameLine(frame: MappedFrame): string {
  let location = frame.file ?? '<unknown>';
  if (frame.line !== undefined) location += `:${frame.line}`;
  if (frame.column !== undefined) location += `:${frame.column}`;
  return frame.function && frame.function !== '?' ? `    at ${frame.function} (${location})` : `    at ${location}`;
}

function exceptionHeader(exception: Json): string {
  const type = stringAt(exception.type);
  const value = stringAt(exception.value);
  return type && value ? `${type}: ${value}` : (type ?? value ?? 'Error');
}

/**
 * The main exception's header and frames, innermost first; then each exception it was caused by, the same way.
 * `frames[i]` is framesOf(chain[i]), mapped once by the caller, which keeps the main exception's.
 */
function stackText(chain: Json[], frames: MappedFrame[][]): string | undefined {
  const parts: string[] = [];
  for (let i = chain.length - 1; i >= 0; i--) {
    const exception = chain[i] as Json;
    const lines = (frames[i] as MappedFrame[]).map(frameLine);
    parts.push(
      [i === chain.length - 1 ? exceptionHeader(exception) : `Caused by: ${exceptionHeader(exception)}`, ...lines].join(
        '\n',
      ),
    );
  }
  const text = parts.join('\n');
  return frames.some((list) => list.length > 0) ? text : undefined;
}

/** `message` as a string, or the older `{ formatted, message }` form; then `logentry`. */
function messageOf(event: Json): string | undefined {
  const message = event.message;
  const logentry = objectAt(event.logentry);
  return (
    stringAt(message) ??
    stringAt(objectAt(message)?.formatted) ??
    stringAt(objectAt(message)?.message) ??
    stringAt(logentry?.formatted) ??
    stringAt(logentry?.message)
  );
}

function headerValue(headers: unknown, name: string): string | undefined {
  const wanted = name.toLowerCase();
  if (Array.isArray(headers)) {
    for (const pair of headers)
      if (Array.isArray(pair) && String(pair[0]).toLowerCase() === wanted) return stringAt(pair[1]);
    return undefined;
  }
  const object = objectAt(headers);
  if (!object) return undefined;
  for (const [key, value] of Object.entries(object)) if (key.toLowerCase() === wanted) return stringAt(value);
  return undefined;
}

function breadcrumbsOf(value: unknown): Json[] | undefined {
  // The newest are the ones worth keeping when there are too many.
  const crumbs = listAt(value).slice(-limits.breadcrumbs);
  const mapped: Json[] = [];
  for (const item of crumbs) {
    const crumb = objectAt(item);
    if (!crumb) continue;
    const timestamp = sentryTimestamp(crumb.timestamp);
    const category = clip(stringAt(crumb.category) ?? stringAt(crumb.type), eventFieldChars.breadcrumbCategory);
    const message = stringAt(crumb.message);
    const level = levelOf(crumb.level);
    const data = objectAt(crumb.data);
    // Field by field, as framesOf does, rather than five conditional spreads per breadcrumb.
    const one: Json = {};
    if (timestamp !== undefined) one.timestamp = timestamp;
    if (category !== undefined) one.category = category;
    if (message !== undefined) one.message = message;
    if (level !== undefined) one.level = level;
    if (data !== undefined) one.data = data;
    mapped.push(one);
  }
  return mapped.length > 0 ? mapped : undefined;
}

/** Sentry sends "11.12.0" or "1.9.10", sometimes with a pre-release suffix the collector's dotted form has no room for. */
function sdkVersionOf(sdk: Json | undefined): string | undefined {
  return /^\d{1,9}(\.\d{1,9}){0,3}/.exec(stringAt(sdk?.version) ?? '')?.[0];
}

/**
 * The collector's raw event for a Sentry event: not yet judged, so it may still be rejected (a release over 200
 * characters, a breadcrumb's data nested too deep). Texts the collector would truncate are left whole here.
 */
export function fromSentryEvent(event: Json, context: SentryMappingContext): Json {
  const chain = listAt(event.exception).filter(isObject);
  const main = chain.at(-1);
  const mechanism = stringAt(objectAt(main?.mechanism)?.type);
  const request = objectAt(event.request);
  const response = objectAt(objectAt(event.contexts)?.response);
  const message = stringAt(main?.value) ?? messageOf(event);
  // A message event may carry a synthetic exception only to hold its stack (the browser SDK's captureMessage): no type.
  const synthetic = objectAt(main?.mechanism)?.synthetic === true;
  const errorType = clip(
    stringAt(main?.type) ?? (!main || synthetic ? MESSAGE_ERROR_TYPE : 'Error'),
    eventFieldChars.errorType,
  ) as string;
  const method = stringAt(request?.method);
  const url = stringAt(request?.url);
  const isFailedRequest =
    mechanism?.startsWith(HTTP_CLIENT_MECHANISM) === true && method !== undefined && url !== undefined;
  const status = integerAt(response?.status_code);
  const framesByException = chain.map(framesOf);
  const stack = stackText(chain, framesByException);
  const frames = framesByException.at(-1) ?? [];
  const eventId = stringAt(event.event_id) ?? context.eventId;
  const timestamp = sentryTimestamp(event.timestamp) ?? context.receivedAt;
  const sdk = objectAt(event.sdk);
  const userAgent = headerValue(request?.headers, 'user-agent');

  const mapped: Json = {
    eventId: `evt_${eventId}`,
    type: isFailedRequest ? 'request' : 'error',
    timestamp,
    errorType,
    ...(message !== undefined && { message }),
    ...(stack !== undefined && { stack }),
    ...(frames.length > 0 && { frames }),
    ...(isFailedRequest && { request: { method, url, ...(status !== undefined && { status }) } }),
  };
  const optional: Json = {
    anonymousId: anonymousIdOf(objectAt(event.user)),
    platform: stringAt(event.platform),
    sdkVersion: sdkVersionOf(sdk),
    release: stringAt(event.release),
    environment: stringAt(event.environment),
    url,
    userAgent,
    breadcrumbs: breadcrumbsOf(event.breadcrumbs),
    level: levelOf(event.level),
    fingerprint: clientFingerprint(event.fingerprint, mapped),
  };
  for (const [key, value] of Object.entries(optional)) if (value !== undefined) mapped[key] = value;
  return mapped;
}

/**
 * A client's fingerprint list as the collector's `<errorType>:<hash>`: the list's parts hashed, `{{ default }}`
 * standing for the server's own fingerprint. No list, or only `{{ default }}`: undefined, the server's applies.
 */
function clientFingerprint(value: unknown, mapped: Json): string | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const parts = value.map((part) => (typeof part === 'string' ? part : (JSON.stringify(part) ?? '')));
  if (parts.every((part) => part.trim() === DEFAULT_FINGERPRINT)) return undefined;
  const errorType = mapped.errorType as string;
  const serverFingerprint = () =>
    computeFingerprint({
      errorType,
      message: mapped.message as string | undefined,
      stack: mapped.stack as string | undefined,
      request: mapped.request as { method: string; url: string; status?: number } | undefined,
    });
  const resolved = parts.map((part) => (part.trim() === DEFAULT_FINGERPRINT ? serverFingerprint() : part));
  return `${fingerprintPrefix(errorType)}:${hash64(resolved.join('\n'))}`;
}
