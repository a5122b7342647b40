// A Sentry event (what Sentry's SDKs send in an envelope's `event` item or to /store/) as the collector's raw event.
// Pure: the result is judged by `judgeEvent` exactly like an event of the batch endpoint, so every bound, the
// fingerprint and the timestamp clamp are applied in one place. Fields the collector has no place for are left out.
import { type EventLevel, eventLevels, type StackFrame, type StoredEvent } from '../event';
import { computeFingerprint, fingerprintPrefix, hash64 } from '../fingerprint';
import { eventDataLimits, eventFieldChars, limits } from '../limits';
import { pruneNesting } from '../text';

type Json = Record<string, unknown>;

export interface SentryMappingContext {
  /** When the request arrived: the timestamp of an event that has none. */
  receivedAt: number;
  /** Used when the event has no `event_id` of its own (the envelope header's, or one generated). */
  eventId: string;
  /** The request's `sentry_client` (`raven-js/3.22.1`): the SDK's version when the event's `sdk` has none. */
  client?: string | undefined;
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
  module?: string;
  absPath?: string;
  contextLine?: string;
  preContext?: string[];
  postContext?: string[];
}

/** Source lines around a frame, as bounded strings; the ones nearest the frame's line kept. */
function contextLinesAt(value: unknown, nearestLast: boolean): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const lines = value.filter((line): line is string => typeof line === 'string');
  const kept = nearestLast ? lines.slice(-eventDataLimits.contextLines) : lines.slice(0, eventDataLimits.contextLines);
  return kept.length > 0 ? kept.map((line) => line.slice(0, eventDataLimits.contextLineChars)) : undefined;
}

/** Sentry lists frames outermost first; the collector keeps them innermost first, as stack texts read. */
function framesOf(holder: Json | undefined): MappedFrame[] {
  const frames = objectAt(holder?.stacktrace)?.frames;
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
    const module = clip(stringAt(frame.module), limits.frameFunctionChars);
    if (module !== undefined) one.module = module;
    const absPath = clip(stringAt(frame.abs_path), limits.frameFileChars);
    if (absPath !== undefined && absPath !== file) one.absPath = absPath;
    const contextLine = typeof frame.context_line === 'string' ? frame.context_line : undefined;
    if (contextLine !== undefined) one.contextLine = contextLine.slice(0, eventDataLimits.contextLineChars);
    const pre = contextLinesAt(frame.pre_context, true);
    if (pre) one.preContext = pre;
    const post = contextLinesAt(frame.post_context, false);
    if (post) one.postContext = post;
    mapped.push(one);
  }
  return mapped;
}

/** A frame as a V8 stack line, the form the fingerprint's frame reader and people both read. */
export function frameLine(frame: MappedFrame | StackFrame): string {
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

/**
 * A stored event's stack text written again from its frames, as fromSentryEvent writes it: after a source map replaced
 * its frames (symbolication.ts), people and grouping read the original names; and when an event stored without it is
 * shown (stored-event.ts), so a change to the text it writes changes how events already stored read. `select` keeps
 * (or rewrites) frames. `frames` that are the main exception's own list, lifted by presentEvent, are the chain's.
 */
export function stackOfFrames(
  event: Pick<StoredEvent, 'exceptions' | 'threads' | 'frames' | 'errorType' | 'type' | 'message'>,
  select: (frame: StackFrame) => StackFrame | undefined = (frame) => frame,
): string | undefined {
  const lines = (frames: readonly StackFrame[]) => {
    const kept: string[] = [];
    for (const frame of frames) {
      const selected = select(frame);
      if (selected !== undefined) kept.push(frameLine(selected));
    }
    return kept;
  };
  const chain = event.exceptions;
  if (chain && chain.length > 0 && (event.frames === undefined || event.frames === chain.at(-1)?.frames)) {
    const parts: string[] = [];
    for (let i = chain.length - 1; i >= 0; i--) {
      const exception = chain[i] as NonNullable<StoredEvent['exceptions']>[number];
      const header = exceptionHeader(exception);
      parts.push([i === chain.length - 1 ? header : `Caused by: ${header}`, ...lines(exception.frames)].join('\n'));
    }
    return parts.join('\n');
  }
  const frames = event.frames ?? event.threads?.[0]?.frames;
  if (frames === undefined) return undefined;
  return [`${event.errorType ?? event.type}: ${event.message ?? ''}`, ...lines(frames)].join('\n');
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
  // The main exception and its nearest causes: a chain longer than the limit loses its deepest causes.
  const chain = listAt(event.exception).filter(isObject).slice(-eventDataLimits.exceptions);
  const main = chain.at(-1);
  const mainMechanism = objectAt(main?.mechanism);
  const mechanism = stringAt(mainMechanism?.type);
  const request = objectAt(event.request);
  const contexts = contextsOf(event.contexts);
  const response = objectAt(contexts?.response);
  const message = stringAt(main?.value) ?? messageOf(event);
  // A message event may carry a synthetic exception only to hold its stack (the browser SDK's captureMessage): no type.
  const synthetic = mainMechanism?.synthetic === true;
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
  let stack = stackText(chain, framesByException);
  // No exception stack: a thread's (sentry-go puts a message's stack there), the crashed one, else the current one.
  const thread = stack === undefined ? threadWithStack(event.threads) : undefined;
  if (thread) stack = [`${errorType}: ${message ?? ''}`, ...thread.frames.map(frameLine)].join('\n');
  const eventId = stringAt(event.event_id) ?? context.eventId;
  const timestamp = sentryTimestamp(event.timestamp) ?? context.receivedAt;
  const sdk = objectAt(event.sdk);
  const headers = headersOf(request?.headers);
  const userAgent = headers?.['user-agent'] ?? headerValue(request?.headers, 'user-agent');

  const mapped: Json = {
    eventId: `evt_${eventId}`,
    type: isFailedRequest ? 'request' : 'error',
    timestamp,
    errorType,
    ...(message !== undefined && { message }),
    ...(stack !== undefined && { stack }),
  };
  const optional: Json = {
    anonymousId: anonymousIdOf(objectAt(event.user)),
    platform: stringAt(event.platform),
    sdkVersion: sdkVersionOf(sdk) ?? sdkVersionOf({ version: context.client?.split('/')[1] }),
    release: stringAt(event.release),
    environment: stringAt(event.environment),
    url,
    userAgent,
    breadcrumbs: breadcrumbsOf(event.breadcrumbs),
    level: levelOf(event.level),
    fingerprint: clientFingerprint(event.fingerprint, mapped),
    request:
      url === undefined ? undefined : requestOf(request as Json, url, isFailedRequest ? status : undefined, headers),
    exceptions:
      chain.length > 0 ? chain.map((exception, i) => exceptionOf(exception, framesByException[i] ?? [])) : undefined,
    // Sentry's `handled` tag is the main exception's mechanism's; unknown (null) without one.
    handled: main ? (typeof mainMechanism?.handled === 'boolean' ? mainMechanism.handled : null) : undefined,
    threads: thread ? [thread] : undefined,
    tags: tagsAt(event.tags),
    contexts: prunedToFit(contexts),
    extra: prunedToFit(objectAt(event.extra)),
    user: userOf(objectAt(event.user)),
    logger: clip(stringAt(event.logger), eventDataLimits.nameChars),
    serverName: clip(stringAt(event.server_name), eventDataLimits.nameChars),
    transaction: clip(stringAt(event.transaction), eventDataLimits.nameChars),
    dist: clip(stringAt(event.dist), eventDataLimits.distChars),
    debugImages: debugImagesOf(objectAt(event.debug_meta)),
  };
  for (const [key, value] of Object.entries(optional)) if (value !== undefined) mapped[key] = value;
  return mapped;
}

/**
 * contexts and extra as deep as the collector's nesting bound allows where they sit (one level below the event):
 * deeper objects are emptied rather than the whole event rejected for them.
 */
function prunedToFit<T extends Json | undefined>(value: T): T {
  if (value) pruneNesting(value, limits.nestingDepth - 1);
  return value;
}

function exceptionOf(exception: Json, frames: MappedFrame[]): Json {
  const mechanism = objectAt(exception.mechanism);
  const one: Json = { frames };
  const type = clip(stringAt(exception.type), eventFieldChars.errorType);
  if (type !== undefined) one.type = type;
  const value = stringAt(exception.value);
  if (value !== undefined) one.value = value.slice(0, eventDataLimits.exceptionValueChars);
  const module = clip(stringAt(exception.module), limits.frameFunctionChars);
  if (module !== undefined) one.module = module;
  if (mechanism) {
    const kept: Json = {};
    const mechanismType = clip(stringAt(mechanism.type), 64);
    if (mechanismType !== undefined) kept.type = mechanismType;
    if (typeof mechanism.handled === 'boolean') kept.handled = mechanism.handled;
    one.mechanism = kept;
  }
  return one;
}

interface MappedThread {
  frames: MappedFrame[];
  name?: string;
  crashed?: boolean;
  current?: boolean;
}

function threadWithStack(value: unknown): MappedThread | undefined {
  const threads = listAt(value).filter(isObject);
  const withFrames = threads.filter((thread) => framesOf(thread).length > 0);
  const chosen =
    withFrames.find((thread) => thread.crashed === true) ??
    withFrames.find((thread) => thread.current === true) ??
    withFrames[0];
  if (!chosen) return undefined;
  const thread: MappedThread = { frames: framesOf(chosen) };
  const name = clip(stringAt(chosen.name) ?? stringAt(chosen.id), eventDataLimits.nameChars);
  if (name !== undefined) thread.name = name;
  if (typeof chosen.crashed === 'boolean') thread.crashed = chosen.crashed;
  if (typeof chosen.current === 'boolean') thread.current = chosen.current;
  return thread;
}

/** A scalar as Sentry's SDKs send tag values and user ids: strings, numbers and booleans, as text. */
function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') return String(value);
  return undefined;
}

const DEBUG_ID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}/i;

/**
 * `debug_meta.images` of type sourcemap, as `{ codeFile, debugId }` with the id in its lowercase hyphenated form (the
 * form sentry-cli writes into bundles). The browser SDK names it `debug_id`, some tools `debugId`; others are skipped.
 */
function debugImagesOf(debugMeta: Json | undefined): Json[] | undefined {
  const images: Json[] = [];
  for (const value of listAt(debugMeta?.images)) {
    if (images.length >= eventDataLimits.debugImages) break;
    const image = objectAt(value);
    if (image?.type !== 'sourcemap') continue;
    const codeFile = stringAt(image.code_file);
    const id = DEBUG_ID.exec(stringAt(image.debug_id) ?? stringAt(image.debugId) ?? '')?.[0];
    if (codeFile === undefined || codeFile.length > limits.frameFileChars || id === undefined) continue;
    const hex = id.replaceAll('-', '').toLowerCase();
    const debugId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    images.push({ codeFile, debugId });
  }
  return images.length > 0 ? images : undefined;
}

/** Tags as an object, or the older list of [key, value] pairs. Bounds are judging's (event-data.ts). */
function tagsAt(value: unknown): Record<string, string> | undefined {
  const pairs: unknown[][] = Array.isArray(value) ? value.filter(Array.isArray) : Object.entries(objectAt(value) ?? {});
  const tags: Record<string, string> = {};
  let any = false;
  for (const [key, raw] of pairs) {
    const text = scalarText(raw);
    if (typeof key !== 'string' || text === undefined) continue;
    tags[key] = text;
    any = true;
  }
  return any ? tags : undefined;
}

/** Contexts are objects by name; anything else under a name is not a context. */
function contextsOf(value: unknown): Record<string, Json> | undefined {
  const contexts = objectAt(value);
  if (!contexts) return undefined;
  const kept: Record<string, Json> = {};
  let any = false;
  for (const [name, context] of Object.entries(contexts)) {
    if (!isObject(context)) continue;
    kept[name] = context;
    any = true;
  }
  return any ? kept : undefined;
}

function userOf(user: Json | undefined): Json | undefined {
  if (!user) return undefined;
  const kept: Json = {};
  let any = false;
  for (const field of ['id', 'email', 'username', 'ip_address'] as const) {
    const text = scalarText(user[field]);
    if (text === undefined || text === '') continue;
    kept[field] = text.slice(0, eventDataLimits.userFieldChars);
    any = true;
  }
  return any ? kept : undefined;
}

/** Headers as an object or [name, value] pairs, as strings; bounds and scrubbing are judging's. */
function headersOf(value: unknown): Record<string, string> | undefined {
  const pairs: unknown[][] = Array.isArray(value) ? value.filter(Array.isArray) : Object.entries(objectAt(value) ?? {});
  const headers: Record<string, string> = {};
  let any = false;
  for (const [name, raw] of pairs) {
    const text = scalarText(raw);
    if (typeof name !== 'string' || text === undefined) continue;
    headers[name.toLowerCase()] = text;
    any = true;
  }
  return any ? headers : undefined;
}

/** `query_string` as a string, an object or [key, value] pairs (SDKs send all three), as one query string. */
function queryOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.startsWith('?') ? value.slice(1) : value || undefined;
  const pairs: unknown[][] = Array.isArray(value) ? value.filter(Array.isArray) : Object.entries(objectAt(value) ?? {});
  const parts: string[] = [];
  for (const [key, raw] of pairs) {
    const text = scalarText(raw);
    if (typeof key === 'string' && text !== undefined)
      parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(text)}`);
  }
  return parts.length > 0 ? parts.join('&') : undefined;
}

function requestOf(
  request: Json,
  url: string,
  status: number | undefined,
  headers: Record<string, string> | undefined,
): Json {
  const method = stringAt(request.method);
  const query = queryOf(request.query_string);
  const one: Json = { url: url.slice(0, eventFieldChars.url) };
  if (method !== undefined && /^[A-Za-z]{1,16}$/.test(method)) one.method = method.toUpperCase();
  if (status !== undefined) one.status = status;
  if (query !== undefined) one.query = query;
  if (headers) one.headers = headers;
  if (request.data !== undefined && request.data !== null) one.data = request.data;
  return one;
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
