// Sentry's event data beside the collector's own fields: tags, contexts, extra, user, request details. Bounded and
// scrubbed here, once, for every event whichever endpoint it came through (judgeEvent calls `boundEventData`), so what
// is stored never holds more than the contract allows nor a value whose key says it is secret.
import { eventDataLimits, limits } from './limits';
import { scanJson, storableCopy, truncateUtf8 } from './text';

type Json = Record<string, unknown>;

/** What a scrubbed value becomes: Sentry's own marker, so people used to it read it at once. */
export const FILTERED = '[Filtered]';

/**
 * Keys whose values are secret, as Sentry's default scrubbing list has them (password, secret, passwd, api_key,
 * apikey, auth, credentials, mysql_pwd, privatekey, private_key, token, session, cookie...), matched anywhere in the
 * key as Sentry does: `X-Auth-Token`, `user_password` and `sessionid` are all caught (and `author` with them).
 */
const SECRET_KEY = /passw|pwd|secret|api[-_]?key|auth|credential|private[-_]?key|token|session|cookie|csrf|xsrf/i;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/**
 * A JSON value with the value of every secret-looking key replaced, at any depth: a copy where one is found, else the
 * value itself (most breadcrumbs and extras hold none, and this runs for every event that has them).
 */
export function scrubbed(value: unknown): unknown {
  return holdsSecretKey(value) ? scrubbedCopy(value) : value;
}

function holdsSecretKey(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(holdsSecretKey);
  for (const key in value) if (isSecretKey(key) || holdsSecretKey((value as Json)[key])) return true;
  return false;
}

/** A key set as an own property: a `__proto__` key parsed from JSON stays data, never the copy's prototype. */
function setOwn(target: Json, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function scrubbedCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scrubbedCopy);
  if (value === null || typeof value !== 'object') return value;
  const copy: Json = {};
  for (const [key, inner] of Object.entries(value))
    setOwn(copy, key, isSecretKey(key) ? FILTERED : scrubbedCopy(inner));
  return copy;
}

/** `a=1&token=x` -> `a=1&token=[Filtered]`: the pairs as sent, only secret ones' values replaced. */
export function scrubbedQuery(query: string): string {
  if (!SECRET_KEY.test(query)) return query;
  return query
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const rawKey = equals < 0 ? pair : pair.slice(0, equals);
      let key = rawKey;
      try {
        key = decodeURIComponent(rawKey.replace(/\+/g, ' '));
      } catch {}
      return equals >= 0 && isSecretKey(key) ? `${rawKey}=${FILTERED}` : pair;
    })
    .join('&');
}

/** A URL with its query string scrubbed (the fragment kept as it is). */
export function scrubbedUrl(url: string): string {
  const question = url.indexOf('?');
  if (question < 0) return url;
  const hash = url.indexOf('#', question);
  const end = hash < 0 ? url.length : hash;
  return url.slice(0, question + 1) + scrubbedQuery(url.slice(question + 1, end)) + url.slice(end);
}

const encoder = new TextEncoder();

/** The size of a value as JSON, in UTF-8 bytes; counted exactly only when it might be over `max`. */
function jsonBytes(value: unknown, max: number): number {
  const text = JSON.stringify(value) ?? '';
  return text.length * 3 <= max ? text.length : encoder.encode(text).length;
}

/**
 * An object kept key by key, in order, while its JSON stays within `maxBytes`; undefined when nothing fits. The keys
 * left out are what the cut marker stands for.
 */
function boundedObject(value: Json, maxBytes: number): { kept: Json | undefined; cut: boolean } {
  if (jsonBytes(value, maxBytes) <= maxBytes) return { kept: value, cut: false };
  const kept: Json = {};
  let bytes = 2; // {}
  let any = false;
  for (const [key, inner] of Object.entries(value)) {
    const size = jsonBytes(key, maxBytes) + 1 + jsonBytes(inner, maxBytes) + (any ? 1 : 0);
    if (bytes + size > maxBytes) continue;
    setOwn(kept, key, inner);
    bytes += size;
    any = true;
  }
  return { kept: any ? kept : undefined, cut: true };
}

const TAG_KEY = /^[A-Za-z0-9_.:-]+$/;

/** Tags as Sentry accepts them: keys of letters, digits and `_.:-` up to 32 characters, values cut to 200. */
function boundedTags(tags: Record<string, string>, cut: string[]): Record<string, string> | undefined {
  const kept: Record<string, string> = {};
  let count = 0;
  let dropped = false;
  for (const [key, value] of Object.entries(tags)) {
    if (count === eventDataLimits.tags || key.length > eventDataLimits.tagKeyChars || !TAG_KEY.test(key)) {
      dropped = true;
      continue;
    }
    if (value.length > eventDataLimits.tagValueChars) dropped = true;
    kept[key] = value.slice(0, eventDataLimits.tagValueChars);
    count++;
  }
  if (dropped) cut.push('tags');
  return count > 0 ? kept : undefined;
}

/** Request headers whose names say they carry credentials, dropped whole rather than filtered. */
const SECRET_HEADER =
  /^(authorization|proxy-authorization|cookie|set-cookie)$|api[-_]?key|auth|token|secret|session|csrf|xsrf/i;

export interface EventData {
  tags?: Record<string, string> | undefined;
  contexts?: Record<string, Json> | undefined;
  extra?: Json | undefined;
  user?: { id?: string; email?: string; username?: string; ip_address?: string } | undefined;
  request?:
    | { url: string; query?: string | undefined; headers?: Record<string, string> | undefined; data?: unknown }
    | undefined;
  url?: string | undefined;
  breadcrumbs?: Array<{ data?: Json | undefined }> | undefined;
  cut?: string[] | undefined;
}

/**
 * The event's Sentry data cut to the contract's limits and scrubbed, in place (the event is judging's own fresh copy):
 * secret-looking keys in extra, contexts, request data, query strings and breadcrumb data become `[Filtered]`, secret
 * headers are dropped, and `ip_address` too unless `storeIp`. What was cut for size is named in `cut`.
 */
export function boundEventData(event: EventData, options: { storeIp: boolean }): void {
  const cut: string[] = [];
  if (event.tags) event.tags = boundedTags(event.tags, cut);
  if (event.contexts) {
    const { kept, cut: wasCut } = boundedObject(scrubbed(event.contexts) as Json, eventDataLimits.contextsBytes);
    event.contexts = kept as Record<string, Json> | undefined;
    if (wasCut) cut.push('contexts');
  }
  if (event.extra) {
    const { kept, cut: wasCut } = boundedObject(scrubbed(event.extra) as Json, eventDataLimits.extraBytes);
    event.extra = kept;
    if (wasCut) cut.push('extra');
  }
  if (event.user) {
    const { ip_address, ...user } = event.user;
    // "{{auto}}" asks Sentry to use the sender's address: not an address itself.
    event.user = options.storeIp && ip_address !== undefined && ip_address !== '{{auto}}' ? event.user : user;
  }
  if (event.url) event.url = scrubbedUrl(event.url);
  const request = event.request;
  if (request) {
    request.url = scrubbedUrl(request.url);
    if (request.query !== undefined) {
      const query = scrubbedQuery(request.query);
      if (query.length > eventDataLimits.queryChars) cut.push('request.query');
      request.query = query.slice(0, eventDataLimits.queryChars);
    }
    if (request.headers) request.headers = boundedHeaders(request.headers, cut);
    if (request.data !== undefined) request.data = boundedRequestData(request.data, cut);
  }
  if (event.breadcrumbs)
    for (const crumb of event.breadcrumbs) if (crumb.data) crumb.data = scrubbed(crumb.data) as Json;
  if (cut.length > 0) event.cut = cut;
}

function boundedHeaders(headers: Record<string, string>, cut: string[]): Record<string, string> | undefined {
  const kept: Record<string, string> = {};
  let count = 0;
  let dropped = false;
  for (const [name, value] of Object.entries(headers)) {
    if (SECRET_HEADER.test(name)) continue;
    if (count === eventDataLimits.requestHeaders) {
      dropped = true;
      continue;
    }
    if (value.length > eventDataLimits.headerValueChars) dropped = true;
    kept[name] = value.slice(0, eventDataLimits.headerValueChars);
    count++;
  }
  if (dropped) cut.push('request.headers');
  return count > 0 ? kept : undefined;
}

/**
 * A body sent as JSON text (what @sentry/node sends for a JSON request), parsed: scrubbing reads keys, and a password in
 * the text would otherwise be kept. Only an object or an array: a bare JSON string or number has no keys to scrub.
 */
function parsedJsonBody(data: string): object | typeof TOO_DEEP | undefined {
  const first = data.trimStart()[0];
  if (first !== '{' && first !== '[') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  // The text passed judging's checks as a string; what it holds has not: its nesting (scrubbing recurses) and its
  // characters (a "\u0000" in the text is a NUL once parsed, which PostgreSQL refuses).
  const scan = scanJson(parsed, limits.nestingDepth);
  if (scan.tooDeep) return TOO_DEEP;
  return scan.unstorable ? (storableCopy(parsed) as object) : parsed;
}

/** What a body nested too deeply to scrub is stored as: it may hold a secret that cannot be found. */
const TOO_DEEP = '[Filtered: nested too deeply to scrub]';

/**
 * A request body: scrubbed if structured (JSON text as the value it holds, as Sentry's server does; a form-encoded
 * string as a query); over 8 KiB, its JSON text cut.
 */
function boundedRequestData(data: unknown, cut: string[]): unknown {
  const json = typeof data === 'string' ? parsedJsonBody(data) : undefined;
  if (json === TOO_DEEP) {
    cut.push('request.data');
    return TOO_DEEP;
  }
  const clean = json !== undefined ? scrubbed(json) : typeof data === 'string' ? scrubbedQuery(data) : scrubbed(data);
  const max = eventDataLimits.requestDataBytes;
  if (jsonBytes(clean, max) <= max) return clean;
  cut.push('request.data');
  return truncateUtf8(typeof clean === 'string' ? clean : (JSON.stringify(clean) ?? ''), max);
}

/** Contexts as they name things: "Chrome 120.0", "Linux 6.1.0", "node v20.11.1". */
function contextName(context: unknown): string | undefined {
  if (context === null || typeof context !== 'object') return undefined;
  const { name, version } = context as Json;
  if (typeof name !== 'string' || name === '') return undefined;
  return typeof version === 'string' && version !== '' ? `${name} ${version}` : name;
}

function deviceName(context: unknown): string | undefined {
  if (context === null || typeof context !== 'object') return undefined;
  const { model, family, name } = context as Json;
  for (const value of [model, family, name]) if (typeof value === 'string' && value !== '') return value;
  return undefined;
}

export interface TaggedEvent {
  tags?: Record<string, string> | undefined;
  contexts?: Record<string, Json> | undefined;
  level?: string | undefined;
  handled?: boolean | null | undefined;
  serverName?: string | undefined;
  logger?: string | undefined;
  transaction?: string | undefined;
}

/**
 * The tags an event is counted and searched by: its own, and where it sent none of that name the ones Sentry derives
 * (level, handled, browser, os, runtime, device from contexts, server_name, logger, transaction). Release and
 * environment are counted apart, as they always were.
 */
export function tagsOf(event: TaggedEvent): Record<string, string> {
  const tags: Record<string, string> = { ...event.tags };
  const derive = (key: string, value: string | undefined) => {
    if (value !== undefined && value !== '' && tags[key] === undefined)
      tags[key] = value.slice(0, eventDataLimits.tagValueChars);
  };
  derive('level', event.level);
  derive('handled', event.handled === true ? 'yes' : event.handled === false ? 'no' : undefined);
  const contexts = event.contexts;
  if (contexts) {
    derive('browser', contextName(contexts.browser));
    derive('os', contextName(contexts.os));
    derive('runtime', contextName(contexts.runtime));
    derive('device', deviceName(contexts.device));
  }
  derive('server_name', event.serverName);
  derive('logger', event.logger);
  derive('transaction', event.transaction);
  return tags;
}

/** Whether contexts name the browser or the OS: then they, not the user agent, feed the breakdown. */
export function contextsNameClient(contexts: Record<string, Json> | undefined): boolean {
  return (
    contexts !== undefined && (contextName(contexts.browser) !== undefined || contextName(contexts.os) !== undefined)
  );
}
