// Grouping: which events are "the same problem". Pure and browser-safe, so SDKs compute
// exactly what the server computes.

// Every pattern here runs in linear time: stacks and messages come from the internet, and a pattern that
// backtracks (like /(.*?)@(.+?):\d+$/) lets one 2 KB gzipped batch hold the event loop for seconds.
const URL_PATTERN = /\b[a-z][a-z0-9+.-]{0,30}:\/\/[^\s'"()<>]+/gi;
const UUID_PATTERN = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const DECIMAL_PATTERN = /\d+(?:\.\d+)+/g;
const TOKEN_PATTERN = /[0-9a-z]+/gi;

/**
 * Grouping versions: an issue records the version that made its fingerprint. Version 2 normalises short prefixed ids
 * (`ch_1002`, `ord_42`, `u-17`) in messages and URLs, and reads a request only for failed requests. Version 3 groups an
 * event a source map mapped on its mapped in-app frames (symbolication.ts), and every other event exactly as version 2
 * (the same fingerprint, computed once). An event is matched under the current version first, then the previous one
 * (write path), so an upgrade splits no issue.
 */
export const GROUPING_VERSION = 3;
export type GroupingVersion = 1 | 2 | 3;

/** A short prefix, a separator, then digits or a longer run of letters and digits with a digit: `ch_1002`, `ord_42`. */
const PREFIXED_ID_PATTERN = /\b[A-Za-z]{1,8}[_-][A-Za-z0-9]+\b/g;

function isPrefixedId(text: string): boolean {
  const separator = text.search(/[_-]/);
  if (separator < 1 || separator > 8) return false;
  const rest = text.slice(separator + 1);
  return /^\d+$/.test(rest) || (rest.length >= 6 && /^[A-Za-z0-9]+$/.test(rest) && hasDigit(rest));
}

/** Only so much of a message decides its group; the rest is never scanned. */
const MESSAGE_SCAN_CHARS = 2048;

/** Most words have no digit, and then nothing in them varies: checked without a regular expression. */
function hasDigit(token: string): boolean {
  for (let i = 0; i < token.length; i++) {
    const code = token.charCodeAt(i);
    if (code >= 48 && code <= 57) return true;
  }
  return false;
}

/** A run of letters and digits that is an id or a number: 42, 0x1f, 3f9a2c1b (hex with a digit, 6+ long). */
function isVariableToken(token: string): boolean {
  return (
    /^\d+$/.test(token) ||
    /^0x[0-9a-f]+$/i.test(token) ||
    (token.length >= 6 && /^[0-9a-f]+$/i.test(token) && /\d/.test(token))
  );
}

/**
 * The message with what varies between occurrences (URLs, ids, numbers) replaced by placeholders.
 * Hex ids and numbers share one placeholder: an id that happens to be all digits must group with the others.
 */
export function normalizeMessage(message: string, version: GroupingVersion = GROUPING_VERSION): string {
  let text = message.slice(0, MESSAGE_SCAN_CHARS);
  // Each pass only where it can match (a URL has "://", a uuid has "-", the rest need a digit): most messages need
  // one or two of the five, and this runs for every event received.
  if (text.includes('://')) text = text.replace(URL_PATTERN, '<url>');
  if (text.includes('-')) text = text.replace(UUID_PATTERN, '<uuid>');
  if (hasDigit(text)) {
    if (version >= 2) text = text.replace(PREFIXED_ID_PATTERN, (token) => (isPrefixedId(token) ? '<id>' : token));
    text = text
      .replace(DECIMAL_PATTERN, '<n>')
      .replace(TOKEN_PATTERN, (token) =>
        !hasDigit(token) ? token : isVariableToken(token) ? '<n>' : token.replace(/\d+/g, '<n>'),
      );
  }
  return text.replace(/\s+/g, ' ').trim();
}

/** A path segment that names one record rather than an endpoint: 17, 3f9a2c1b, a uuid, a long random token. */
function isIdSegment(segment: string, version: GroupingVersion): boolean {
  return (
    /^\d+$/.test(segment) ||
    (version >= 2 && isPrefixedId(segment)) ||
    (segment.length >= 6 && /^[0-9a-f-]+$/i.test(segment) && /\d/.test(segment)) ||
    (segment.length >= 16 && /^[\w-]+$/.test(segment) && /\d/.test(segment) && /[a-z]/i.test(segment))
  );
}

/** A URL reduced to what identifies an endpoint: origin and path, record ids in the path replaced (versions like v1 stay). */
export function normalizeUrl(url: string, version: GroupingVersion = GROUPING_VERSION): string {
  const withoutQuery = url.split(/[?#]/, 1)[0] ?? '';
  return withoutQuery
    .split('/')
    .map((segment) => {
      const dot = segment.lastIndexOf('.');
      const [stem, extension] = dot > 0 ? [segment.slice(0, dot), segment.slice(dot)] : [segment, ''];
      return isIdSegment(stem, version) ? `<id>${extension}` : segment;
    })
    .join('/');
}

/** Cuts a trailing ":line" or ":line:col"; null when the location has none. */
function withoutLineAndColumn(location: string): string | null {
  let end = location.length;
  let cuts = 0;
  while (cuts < 2) {
    let digits = end;
    while (digits > 0 && location.charCodeAt(digits - 1) >= 48 && location.charCodeAt(digits - 1) <= 57) digits--;
    if (digits === end || location[digits - 1] !== ':') break;
    end = digits - 1;
    cuts++;
  }
  return cuts === 0 ? null : location.slice(0, end);
}

/** One stack line as [function, location], or null when it is not a frame (a header line, a message line). */
export function parseFrame(line: string): [string, string] | null {
  const text = line.trim();
  if (text.startsWith('at ')) {
    // V8: "at fn (file:1:2)", "at file:1:2", "at async fn (file:1:2)"
    const body = text.slice(3);
    const open = body.endsWith(')') ? body.lastIndexOf(' (') : -1;
    const [fn, location] = open >= 0 ? [body.slice(0, open), body.slice(open + 2, -1)] : ['', body];
    return [fn, withoutLineAndColumn(location) ?? location];
  }
  // Firefox and Safari: "fn@file:1:2" or "@file:1:2"; it must end in a line number, so that a V8 header
  // line such as "Error: bad address bob@example.com" is not taken for a frame.
  const at = text.indexOf('@');
  if (at < 0) return null;
  const location = withoutLineAndColumn(text.slice(at + 1));
  return location === null ? null : [text.slice(0, at), location];
}

/** Content hashes in bundle names change with every deploy: app.3f9a2c1b.js, index-D8s7xX3k.js -> app.<hash>.js */
function fileName(location: string): string {
  const base = baseName(location);
  // A hash has a digit; most file names have none and need no splitting.
  if (!hasDigit(base)) return base;
  const parts = base.split(/([.-])/);
  // parts alternate name, separator, name...; the last name is the extension.
  for (let i = 2; i < parts.length - 1; i += 2) {
    const part = parts[i] ?? '';
    if (part.length >= 6 && /^\w+$/.test(part) && /\d/.test(part) && /[a-z]/i.test(part)) {
      parts[i] = '<hash>';
      parts[i - 1] = '.';
    }
  }
  return parts.join('');
}

/** The last path segment of a location, query and fragment cut: "https://x/a/b.js?v=1#l" -> "b.js". */
function baseName(location: string): string {
  let end = location.length;
  for (let i = 0; i < end; i++) {
    const code = location.charCodeAt(i);
    if (code === 63 || code === 35) end = i; // ? #
  }
  return location.slice(location.lastIndexOf('/', end - 1) + 1, end);
}

/** Frames sit at the top; a stack this long or a line this wide is noise, not more evidence. */
export const STACK_SCAN_LINES = 100;
export const FRAME_LINE_CHARS = 1024;

/** The first frames of a stack trace as "function@file", line and column left out so a redeploy keeps the group. */
export function topFrames(stack: string, count = 5): string[] {
  const frames: string[] = [];
  // Line by line, without splitting the whole stack: only the first frames are read.
  let start = 0;
  for (let line = 0; line < STACK_SCAN_LINES && frames.length < count && start <= stack.length; line++) {
    let end = stack.indexOf('\n', start);
    if (end < 0) end = stack.length;
    if (end - start <= FRAME_LINE_CHARS) {
      const frame = parseFrame(stack.slice(start, end));
      if (frame) frames.push(`${frame[0].trim() || '?'}@${fileName(frame[1])}`);
    }
    start = end + 1;
  }
  return frames;
}

/** The fingerprint's first part: the error type restricted to the characters a fingerprint allows. */
export function fingerprintPrefix(errorType: string): string {
  const slug = errorType.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 64);
  return slug || 'error';
}

/** 64-bit FNV-1a in two 32-bit halves: stable, fast, no crypto API needed in browsers. */
export function hash64(text: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0xcbf29ce4;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 0x01000193);
    h2 = Math.imul(h2 ^ code, 0x0100019d) ^ (h1 >>> 15);
  }
  return (h1 >>> 0).toString(16).padStart(8, '0') + (h2 >>> 0).toString(16).padStart(8, '0');
}

export interface FingerprintInput {
  errorType: string;
  message?: string | undefined;
  stack?: string | undefined;
  request?: { method?: string | undefined; url: string; status?: number | undefined } | undefined;
}

export function computeFingerprint(input: FingerprintInput, version: GroupingVersion = GROUPING_VERSION): string {
  return fingerprintOf(
    input.errorType,
    normalizeMessage(input.message ?? '', version),
    requestLine(input.request, version),
    input.stack ? topFrames(input.stack) : [],
  );
}

/** A request as it takes part in a fingerprint: method, normalised URL and status; undefined for none. */
export function requestLine(request: FingerprintInput['request'], version: GroupingVersion): string | undefined {
  if (!request) return undefined;
  const { method = '', url, status = 0 } = request;
  return `${method.toUpperCase()} ${normalizeUrl(url, version)} ${status}`;
}

/**
 * The fingerprint of parts already normalised (computeFingerprint's): for a caller that computes two versions' and
 * reuses what they share, such as the top frames.
 */
export function fingerprintOf(
  errorType: string,
  message: string,
  request: string | undefined,
  frames: readonly string[],
): string {
  const prefix = fingerprintPrefix(errorType);
  const parts = [prefix, message];
  if (request !== undefined) parts.push(request);
  parts.push(...frames);
  return `${prefix}:${hash64(parts.join('\n'))}`;
}
