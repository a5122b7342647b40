// What the SDK hooks into in the page: global error events, fetch, XMLHttpRequest, history, console, clicks, page hide.
// Installed once per page and never removed (a later library may have wrapped our wrappers); each hook asks for the
// live SDK and passes straight through when there is none. Every hook calls the page's original first or regardless,
// and nothing the SDK does inside a hook may throw into the page.
import { describeValue } from './event';
import type { BrowserSdk } from './sdk';

type Current = () => BrowserSdk | undefined;

/** Runs SDK code from inside a page callback; the SDK failing must never become the page's error. */
function guard(run: () => void): void {
  try {
    run();
  } catch {
    // Swallowed on purpose: reporting it could recurse, and throwing would break the page.
  }
}

const now = () => (typeof performance !== 'undefined' && performance.now ? performance.now() : Date.now());

function absoluteUrl(url: string): string {
  try {
    return new URL(url, location.href).href;
  } catch {
    return url;
  }
}

/** `div.cart > button#checkout`: enough to know which control was clicked, without its text (which may be personal). */
function describeElement(target: unknown): string {
  const parts: string[] = [];
  let element = target as Element | null;
  while (element && element.nodeType === 1 && parts.length < 3) {
    const tag = element.tagName.toLowerCase();
    if (tag === 'html' || tag === 'body') break;
    let part = tag;
    if (element.id) part += `#${element.id}`;
    const className = typeof element.className === 'string' ? element.className.trim() : '';
    if (className) part += `.${className.split(/\s+/).slice(0, 2).join('.')}`;
    parts.unshift(part);
    element = element.parentElement;
  }
  return parts.join(' > ');
}

interface Saved {
  /** fetch as it was before the SDK wrapped it: the transport uses it, so its own requests pass no instrumentation. */
  fetch: typeof fetch | undefined;
}

let saved: Saved | undefined;

export function instrument(win: Window & typeof globalThis, current: Current): Saved {
  if (saved) return saved;
  const originalFetch = typeof win.fetch === 'function' ? win.fetch : undefined;
  saved = { fetch: originalFetch?.bind(win) };

  // Capture phase on window: runtime errors (ErrorEvent) and failed resource loads, which do not bubble.
  win.addEventListener(
    'error',
    (event) =>
      guard(() => {
        const sdk = current();
        if (!sdk) return;
        const target = event.target as Element | null;
        if (target && target !== (win as unknown) && target.nodeType === 1) {
          const url =
            (target as HTMLImageElement).currentSrc ||
            (target as HTMLScriptElement).src ||
            (target as HTMLLinkElement).href;
          sdk.onResourceError(target.tagName.toLowerCase(), typeof url === 'string' ? url : '');
          return;
        }
        const error = event as ErrorEvent;
        sdk.onUncaughtError({
          error: error.error,
          message: error.message,
          filename: error.filename,
          lineno: error.lineno,
          colno: error.colno,
        });
      }),
    true,
  );
  win.addEventListener('unhandledrejection', (event) =>
    guard(() => current()?.onUnhandledRejection((event as PromiseRejectionEvent).reason)),
  );

  // The last chance to send: visibilitychange to hidden is the one event mobile browsers reliably fire before a
  // page is discarded; pagehide covers closing and navigating away (and the back-forward cache).
  win.addEventListener('pagehide', () => guard(() => current()?.onPageHidden()));
  win.document.addEventListener('visibilitychange', () =>
    guard(() => win.document.visibilityState === 'hidden' && current()?.onPageHidden()),
  );

  win.document.addEventListener(
    'click',
    (event) =>
      guard(() =>
        current()?.addBreadcrumb({ category: 'ui.click', level: 'info', message: describeElement(event.target) }),
      ),
    true,
  );

  instrumentNavigation(win, current);
  instrumentConsole(win, current);
  if (originalFetch) instrumentFetch(win, originalFetch, current);
  if (typeof win.XMLHttpRequest === 'function') instrumentXhr(win, current);
  return saved;
}

function instrumentNavigation(win: Window & typeof globalThis, current: Current): void {
  let last = win.location.href;
  // popstate and hashchange both fire for one hash navigation: only a changed URL makes a breadcrumb.
  const record = () =>
    guard(() => {
      const to = win.location.href;
      if (to === last) return;
      const from = last;
      last = to;
      current()?.addBreadcrumb({ category: 'navigation', level: 'info', message: to, data: { from, to } });
    });
  for (const name of ['pushState', 'replaceState'] as const) {
    const original = win.history[name];
    if (typeof original !== 'function') continue;
    win.history[name] = function (this: History, ...args: Parameters<History['pushState']>) {
      const result = original.apply(this, args);
      record();
      return result;
    };
  }
  win.addEventListener('popstate', record);
  win.addEventListener('hashchange', record);
}

function instrumentConsole(win: Window & typeof globalThis, current: Current): void {
  const console = win.console;
  if (!console) return;
  for (const [method, level] of [
    ['warn', 'warning'],
    ['error', 'error'],
  ] as const) {
    const original = console[method];
    if (typeof original !== 'function') continue;
    console[method] = function (this: Console, ...args: unknown[]) {
      guard(() =>
        current()?.addBreadcrumb({
          category: 'console',
          level,
          message: args.map((arg) => describeValue(arg, 512)).join(' '),
        }),
      );
      return original.apply(this, args);
    };
  }
}

function instrumentFetch(win: Window & typeof globalThis, original: typeof fetch, current: Current): void {
  win.fetch = function (this: unknown, input: RequestInfo | URL, init?: RequestInit) {
    const sdk = current();
    let request: { method: string; url: string } | undefined;
    if (sdk) {
      guard(() => {
        const isRequest = typeof Request !== 'undefined' && input instanceof Request;
        const url = absoluteUrl(isRequest ? input.url : String(input));
        if (!sdk.isOwnRequest(url))
          request = { method: String(init?.method ?? (isRequest ? input.method : 'GET')), url };
      });
    }
    // `this` passes through: fetch called on a wrong receiver throws "Illegal invocation" with or without the SDK.
    const response = original.call(this as typeof globalThis, input, init);
    if (!sdk || !request) return response;
    const started = now();
    const finished = request;
    // The page gets this chained promise, not the original: a rejection it does not handle still reaches
    // unhandledrejection, exactly as without the SDK.
    return response.then(
      (answer) => {
        guard(() => sdk.onRequest({ kind: 'fetch', ...finished, status: answer.status, durationMs: now() - started }));
        return answer;
      },
      (error: unknown) => {
        const aborted = (error as { name?: unknown } | null)?.name === 'AbortError';
        guard(() =>
          sdk.onRequest({ kind: 'fetch', ...finished, status: 0, durationMs: now() - started, aborted, error }),
        );
        throw error;
      },
    );
  } as typeof fetch;
}

function instrumentXhr(win: Window & typeof globalThis, current: Current): void {
  const proto = win.XMLHttpRequest.prototype;
  const { open, send } = proto;
  const requests = new WeakMap<XMLHttpRequest, { method: string; url: string }>();
  proto.open = function (this: XMLHttpRequest, ...args: unknown[]) {
    guard(() => requests.set(this, { method: String(args[0]), url: absoluteUrl(String(args[1])) }));
    return (open as (...a: unknown[]) => void).apply(this, args);
  } as typeof proto.open;
  proto.send = function (this: XMLHttpRequest, body?: Document | XMLHttpRequestBodyInit | null) {
    guard(() => {
      const sdk = current();
      const request = requests.get(this);
      if (!sdk || !request || sdk.isOwnRequest(request.url)) return;
      const started = now();
      let aborted = false;
      this.addEventListener('abort', () => {
        aborted = true;
      });
      // loadend comes once, after load, error, timeout or abort.
      this.addEventListener('loadend', () =>
        guard(() =>
          sdk.onRequest({ kind: 'xhr', ...request, status: this.status, durationMs: now() - started, aborted }),
        ),
      );
    });
    return send.call(this, body);
  };
}
