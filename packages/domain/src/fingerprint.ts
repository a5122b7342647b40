// Grouping: which events are "the same problem". Pure and browser-safe, so SDKs compute
// exactly what the server computes.

const URL_PATTERN = /\b[a-z][a-z0-9+.-]*:\/\/[^\s'"()<>]+/gi;
const UUID_PATTERN = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
// 0x-prefixed, or 6+ hex characters mixing digits and letters (hashes, object ids); plain words stay.
const HEX_PATTERN = /\b(?:0x[0-9a-f]+|(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{6,})\b/gi;
const NUMBER_PATTERN = /\d+(?:\.\d+)?/g;

/** The message with what varies between occurrences (URLs, ids, numbers) replaced by placeholders. */
export function normalizeMessage(message: string): string {
  return message
    .replace(URL_PATTERN, '<url>')
    .replace(UUID_PATTERN, '<uuid>')
    .replace(HEX_PATTERN, '<hex>')
    .replace(NUMBER_PATTERN, '<n>')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A URL reduced to what identifies an endpoint: origin and path, ids in the path replaced. */
export function normalizeUrl(url: string): string {
  const withoutQuery = url.split(/[?#]/, 1)[0] ?? '';
  return withoutQuery
    .split('/')
    .map((segment) => (/\d/.test(segment) && /^[\w.-]+$/.test(segment) && !segment.includes('.') ? '<id>' : segment))
    .join('/');
}

// V8: "    at fn (file:1:2)" or "    at file:1:2"; Firefox/Safari: "fn@file:1:2".
const V8_FRAME = /^\s*at (?:(.+?) \()?(.+?)(?::\d+)?(?::\d+)?\)?$/;
const GECKO_FRAME = /^\s*(.*?)@(.+?)(?::\d+)?(?::\d+)?$/;

function fileName(location: string): string {
  const path = location.split(/[?#]/, 1)[0] ?? '';
  const base = path.slice(path.lastIndexOf('/') + 1);
  // Content hashes in bundle names change with every deploy: app.3f9a2c1b.js -> app.<hash>.js
  return base.replace(/[.-][0-9a-f]{6,}(?=\.)/gi, '.<hash>');
}

/** The first frames of a stack trace as "function@file", line and column left out so a redeploy keeps the group. */
export function topFrames(stack: string, count = 5): string[] {
  const frames: string[] = [];
  for (const line of stack.split('\n')) {
    if (frames.length >= count) break;
    const match = V8_FRAME.exec(line) ?? (line.includes('@') ? GECKO_FRAME.exec(line) : null);
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
