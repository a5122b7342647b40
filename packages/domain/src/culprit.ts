// The culprit: where an issue happens, shown beside its message so that issues with one message can be told apart.
// Pure and zod-free like the fingerprint, whose stack parsing it shares.
import { FRAME_LINE_CHARS, normalizeUrl, parseFrame, STACK_SCAN_LINES } from './fingerprint';

/** Long enough for any real function and path; a longer one is cut rather than stored whole on every issue. */
const CULPRIT_CHARS = 300;

/**
 * Frames that are not the app's own code: dependencies, the runtime, the browser and its extensions, and vendor
 * bundles (vendor.js, vendors~main.js, chunk-vendors.3f9a.js).
 */
function isInApp(location: string): boolean {
  if (location === '' || location === 'native' || location === '<anonymous>') return false;
  if (/^(node:|internal\/|chrome-extension:|moz-extension:|safari-extension:|webkit-masked-url:)/.test(location))
    return false;
  if (location.includes('/node_modules/')) return false;
  const path = location.split(/[?#]/, 1)[0] ?? '';
  const base = path.slice(path.lastIndexOf('/') + 1);
  return !/^(chunk-)?vendors?\b/i.test(base);
}

/** A frame's location as a path: origin, query, line and column left out (`/assets/app.3f9a2c1b.js`). */
function filePath(location: string): string {
  const withoutQuery = location.split(/[?#]/, 1)[0] ?? '';
  const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(withoutQuery);
  return origin ? withoutQuery.slice(origin[0].length) || '/' : withoutQuery;
}

function frameName(fn: string): string {
  const name = fn.trim().replace(/^(async|new) /, '');
  return name === '' ? '<anonymous>' : name;
}

export interface CulpritInput {
  type?: string | undefined;
  stack?: string | undefined;
  request?: { method?: string | undefined; url: string } | undefined;
}

/**
 * For a failed request its method and URL path with record ids replaced, as the issue groups them
 * (`GET /api/orders/<id>`); otherwise `function (file)` of the innermost in-app frame of the stack (the innermost
 * frame when none is in-app), and for an error without a stack the request it happened in.
 * Null when the event has neither a frame nor a request.
 */
export function culpritOf(event: CulpritInput): string | null {
  const request = event.request;
  if (request && (event.type === 'request' || !event.stack)) {
    const path = filePath(normalizeUrl(request.url));
    return (request.method ? `${request.method.toUpperCase()} ${path}` : path).slice(0, CULPRIT_CHARS);
  }
  if (event.stack) {
    let innermost: string | null = null;
    for (const line of event.stack.split('\n', STACK_SCAN_LINES)) {
      if (line.length > FRAME_LINE_CHARS) continue;
      const frame = parseFrame(line);
      if (!frame) continue;
      const [fn, location] = frame;
      const culprit = `${frameName(fn)} (${filePath(location)})`.slice(0, CULPRIT_CHARS);
      if (isInApp(location)) return culprit;
      innermost ??= culprit;
    }
    if (innermost) return innermost;
  }
  return null;
}
