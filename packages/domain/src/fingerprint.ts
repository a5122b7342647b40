// Grouping: which events are "the same problem". Pure and browser-safe, so SDKs compute
// exactly what the server computes.

const URL_PATTERN = /\b[a-z][a-z0-9+.-]*:\/\/[^\s'"()<>]+/gi;
// Token edges are letters and digits only, so the id in "user_3f9a2c1b" or "chunk-12345678" is found too.
const UUID_PATTERN = /(?<![0-9a-z])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9a-z])/gi;
// 0x-prefixed, or 6+ hex characters with a digit (hashes, object ids); plain words like "facade" stay.
const HEX_PATTERN = /(?<![0-9a-z])(?:0x[0-9a-f]+|(?=[a-f]*\d)[0-9a-f]{6,})(?![0-9a-z])/gi;
const NUMBER_PATTERN = /\d+(?:\.\d+)?/g;

/**
 * The message with what varies between occurrences (URLs, ids, numbers) replaced by placeholders.
 * Hex ids and numbers share one placeholder: an id that happens to be all digits must group with the others.
 */
export function normalizeMessage(message: string): string {
  return message
    .replace(URL_PATTERN, '<url>')
    .replace(UUID_PATTERN, '<uuid>')
    .replace(HEX_PATTERN, '<n>')
    .replace(NUMBER_PATTERN, '<n>')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A path segment that names one record rather than an endpoint: 17, 3f9a2c1b, a uuid, a long random token. */
function isIdSegment(segment: string): boolean {
  return /^\d+$/.test(segment) || /^(?=[^\d]*\d)[0-9a-f-]{6,}$/i.test(segment) || /^(?=[^\d]*\d)(?=.*[a-z])[A-Za-z0-9_-]{16,}$/i.test(segment);
}

/** A URL reduced to what identifies an endpoint: origin and path, record ids in the path replaced (versions like v1 stay). */
export function normalizeUrl(url: string): string {
  const withoutQuery = url.split(/[?#]/, 1)[0] ?? '';
  return withoutQuery
    .split('/')
    .map((segment) => {
      const dot = segment.lastIndexOf('.');
      const [stem, extension] = dot > 0 ? [segment.slice(0, dot), segment.slice(dot)] : [segment, ''];
      return isIdSegment(stem) ? `<id>${extension}` : segment;
    })
    .join('/');
}

// V8: "    at fn (file:1:2)" or "    at file:1:2". Firefox/Safari: "fn@file:1:2", which must end in
// line and column, so a V8 header line like "Error: bad address bob@example.com" is not taken for a frame.
const V8_FRAME = /^\s*at (?:(.+?) \()?(.+?)(?::\d+)?(?::\d+)?\)?$/;
const GECKO_FRAME = /^\s*(.*?)@(.+?):\d+(?::\d+)?$/;

function fileName(location: string): string {
  const path = location.split(/[?#]/, 1)[0] ?? '';
  const base = path.slice(path.lastIndexOf('/') + 1);
  // Content hashes in bundle names change with every deploy: app.3f9a2c1b.js, index-D8s7xX3k.js -> app.<hash>.js
  return base.replace(/[.-](?=[^./]*\d)(?=[^./]*[A-Za-z])[A-Za-z0-9_]{6,}(?=\.[A-Za-z]+$)/g, '.<hash>');
}

/** The first frames of a stack trace as "function@file", line and column left out so a redeploy keeps the group. */
export function topFrames(stack: string, count = 5): string[] {
  const frames: string[] = [];
  for (const line of stack.split(/\r?\n/)) {
    if (frames.length >= count) break;
    const match = V8_FRAME.exec(line) ?? GECKO_FRAME.exec(line);
    if (!match?.[2]) continue;
    frames.push(`${match[1]?.trim() || '?'}@${fileName(match[2])}`);
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
  request?: { method: string; url: string; status?: number | undefined } | undefined;
}

export function computeFingerprint(input: FingerprintInput): string {
  const parts = [fingerprintPrefix(input.errorType), normalizeMessage(input.message ?? '')];
  if (input.request) {
    parts.push(`${input.request.method.toUpperCase()} ${normalizeUrl(input.request.url)} ${input.request.status ?? 0}`);
  }
  if (input.stack) parts.push(...topFrames(input.stack));
  return `${fingerprintPrefix(input.errorType)}:${hash64(parts.join('\n'))}`;
}
