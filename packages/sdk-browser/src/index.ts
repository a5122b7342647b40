// The browser SDK's public face: init once, and errors, rejections and failed requests are reported by themselves.
// Every function here returns normally whatever happens: an error tracker that breaks the page is worse than none.
import type { Breadcrumb, EventUser } from './event';
import { resolveIdentity, storageOf } from './identity';
import { instrument } from './instrument';
import { type InitOptions, resolveOptions } from './options';
import { BrowserSdk, SDK_VERSION } from './sdk';
import { type FetchLike, Transport } from './transport';

export type { Breadcrumb, BreadcrumbLevel, CollectorEvent, EventUser, RequestInfo } from './event';
export type { InitOptions } from './options';
export { SDK_VERSION };

let sdk: BrowserSdk | undefined;

function warn(message: string): void {
  try {
    // Once, at init, for the developer who wired it: the only message the SDK ever prints.
    globalThis.console?.warn(`[collector] ${message}`);
  } catch {
    // No console: nothing to say it with.
  }
}

/** Starts capturing. A second call replaces the first configuration (its queued events are sent first). */
export function init(options: InitOptions): void {
  try {
    if (typeof window === 'undefined' || typeof document === 'undefined') return; // server-side rendering: nothing to watch
    const resolved = resolveOptions(options, window.location.href);
    if (typeof resolved === 'string') {
      warn(resolved);
      return;
    }
    if (sdk) sdk.close().catch(() => undefined);
    const saved = instrument(window, () => sdk);
    const nativeFetch = saved.fetch;
    const transport = new Transport({
      url: resolved.ingestUrl,
      appKey: resolved.appKey,
      fetch: nativeFetch ? (nativeFetch as unknown as FetchLike) : () => Promise.reject(new Error('no fetch')),
      sendBeacon:
        typeof navigator !== 'undefined' && typeof navigator.sendBeacon === 'function'
          ? (url, body) => navigator.sendBeacon(url, body)
          : undefined,
      flushIntervalMs: resolved.flushIntervalMs,
      maxQueueSize: resolved.maxQueueSize,
    });
    const identity = resolveIdentity(
      storageOf(() => window.sessionStorage),
      storageOf(() => window.localStorage),
    );
    sdk = new BrowserSdk(resolved, transport, identity, {
      url: () => window.location.href,
      userAgent: () => navigator.userAgent,
    });
  } catch {
    // See the file's first lines.
  }
}

/** Reports an error (or any thrown value) now; returns its eventId, or undefined when it was not sent. */
export function captureException(error: unknown): string | undefined {
  try {
    return sdk?.captureException(error);
  } catch {
    return undefined;
  }
}

/** Reports a message as an issue of type `Message`; returns its eventId, or undefined when it was not sent. */
export function captureMessage(message: string): string | undefined {
  try {
    return sdk?.captureMessage(message);
  } catch {
    return undefined;
  }
}

/** A tag on every event from now on: counted per issue and searchable (`key:value`). */
export function setTag(key: string, value: string): void {
  try {
    sdk?.setTag(key, value);
  } catch {
    // See the file's first lines.
  }
}

/** The user shown on every event from now on (id, email, username); null forgets it. */
export function setUser(user: EventUser | null): void {
  try {
    sdk?.setUser(user);
  } catch {
    // See the file's first lines.
  }
}

/** A named group of facts shown on every event from now on (`order`, `feature_flags`); null removes it. */
export function setContext(name: string, context: Record<string, unknown> | null): void {
  try {
    sdk?.setContext(name, context);
  } catch {
    // See the file's first lines.
  }
}

/** One more value shown with every event from now on. */
export function setExtra(key: string, value: unknown): void {
  try {
    sdk?.setExtra(key, value);
  } catch {
    // See the file's first lines.
  }
}

export function addBreadcrumb(crumb: Breadcrumb): void {
  try {
    sdk?.addBreadcrumb(crumb);
  } catch {
    // Nothing to do: a breadcrumb is not worth an error.
  }
}

/** Sends what is queued; resolves true when all of it was delivered within `timeoutMs` (default 2000). Never rejects. */
export function flush(timeoutMs?: number): Promise<boolean> {
  try {
    return (sdk?.flush(timeoutMs) ?? Promise.resolve(true)).catch(() => false);
  } catch {
    return Promise.resolve(false);
  }
}

/** Flushes, then stops capturing; the page's fetch, XHR and console keep working as before. Never rejects. */
export function close(timeoutMs?: number): Promise<boolean> {
  try {
    const closing = sdk;
    sdk = undefined;
    return (closing?.close(timeoutMs) ?? Promise.resolve(true)).catch(() => false);
  } catch {
    return Promise.resolve(false);
  }
}
