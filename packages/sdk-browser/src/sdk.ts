// One initialised SDK: turns what the page reports (errors, rejections, requests, breadcrumbs) into events and queues
// them. Free of DOM globals, so its rules run under unit tests with a fake transport and page.
import { version } from '../package.json';
import { BreadcrumbRing, normalizeBreadcrumb } from './breadcrumbs';
import {
  type Breadcrumb,
  type CollectorEvent,
  computeFingerprint,
  describeValue,
  type EventUser,
  errorFieldsOf,
  fieldLimits,
  fingerprintOf,
  truncate,
} from './event';
import { type Identity, newEventId } from './identity';
import type { ResolvedOptions } from './options';

export const SDK_VERSION: string = version;

/** What the SDK reads from the page when it builds an event. */
export interface PageContext {
  url(): string | undefined;
  userAgent(): string | undefined;
}

/** The part of the transport the SDK uses. */
export interface EventSink {
  enqueue(event: unknown): boolean;
  flush(timeoutMs?: number): Promise<boolean>;
  flushOnUnload(): void;
  close(): void;
}

/** The fields of an ErrorEvent the SDK reads: the thrown value, or, when the browser hides it, where it happened. */
export interface UncaughtError {
  error?: unknown;
  message?: string;
  filename?: string;
  lineno?: number;
  colno?: number;
}

/** A fetch or XMLHttpRequest that finished, failed or was aborted. */
export interface FinishedRequest {
  kind: 'fetch' | 'xhr';
  method: string;
  url: string;
  /** 0 when no answer came. */
  status: number;
  durationMs: number;
  aborted?: boolean;
  /** What fetch rejected with, so that the same error reaching unhandledrejection is not captured again. */
  error?: unknown;
}

/** An HTTP method as the server takes it (letters only); anything odd is reported as GET rather than losing the event. */
const methodOf = (method: string) => (/^[A-Za-z]{1,16}$/.test(method) ? method.toUpperCase() : 'GET');

export class BrowserSdk {
  readonly breadcrumbs: BreadcrumbRing;
  /** Error objects already sent: one captured by hand and then rethrown, or a fetch failure that nobody caught, is one event. */
  private readonly captured = new WeakSet<object>();
  /** Set while an event is built: anything captured meanwhile (say, by beforeSend) would start a loop. */
  private capturing = false;
  private closed = false;
  /** What setTag, setUser, setContext and setExtra set: copied into each event built after. */
  private readonly scope: Pick<CollectorEvent, 'tags' | 'user' | 'contexts' | 'extra'> = {};

  constructor(
    readonly options: ResolvedOptions,
    private readonly sink: EventSink,
    private readonly identity: Identity,
    private readonly page: PageContext,
    private readonly random: () => number = Math.random,
  ) {
    this.breadcrumbs = new BreadcrumbRing(options.maxBreadcrumbs);
  }

  captureException(error: unknown, fallbackType = 'Error'): string | undefined {
    if (typeof error === 'object' && error !== null) {
      if (this.captured.has(error)) return undefined;
      this.captured.add(error);
    }
    return this.capture({ type: 'error', ...errorFieldsOf(error, fallbackType) });
  }

  captureMessage(message: unknown): string | undefined {
    return this.capture({
      type: 'error',
      errorType: 'Message',
      message: truncate(describeValue(message, fieldLimits.message), fieldLimits.message),
    });
  }

  setTag(key: string, value: string): void {
    if (typeof key !== 'string' || typeof value !== 'string') return;
    this.scope.tags = { ...this.scope.tags, [key]: value };
  }

  /** null forgets the user (on logout). */
  setUser(user: EventUser | null): void {
    if (user === null) delete this.scope.user;
    else if (typeof user === 'object') {
      const kept: EventUser = {};
      for (const field of ['id', 'email', 'username'] as const)
        if (typeof user[field] === 'string') kept[field] = user[field];
      this.scope.user = kept;
    }
  }

  /** A named group of facts (`order`, `feature_flags`); null removes it. */
  setContext(name: string, context: Record<string, unknown> | null): void {
    if (typeof name !== 'string') return;
    const contexts = { ...this.scope.contexts };
    if (context === null) delete contexts[name];
    else if (typeof context === 'object') contexts[name] = context;
    this.scope.contexts = contexts;
  }

  setExtra(key: string, value: unknown): void {
    if (typeof key !== 'string') return;
    this.scope.extra = { ...this.scope.extra, [key]: value };
  }

  addBreadcrumb(crumb: Breadcrumb): void {
    if (this.closed || typeof crumb !== 'object' || crumb === null) return;
    this.breadcrumbs.add(normalizeBreadcrumb(crumb, Date.now()));
  }

  /** The requests the SDK itself makes are never reported: an unreachable collector must not feed its own queue. */
  isOwnRequest(url: string): boolean {
    return url.split(/[?#]/, 1)[0] === this.options.ingestUrl;
  }

  onUncaughtError(event: UncaughtError): void {
    const { error } = event;
    if (typeof error === 'object' && error !== null) {
      this.captureException(error);
      return;
    }
    const message =
      error === undefined || error === null ? (event.message ?? '') : describeValue(error, fieldLimits.message);
    // A cross-origin script without CORS (no crossorigin attribute) gives only this: no message, file or stack to act
    // on.
    if (!event.filename && /^Script error\.?$/.test(message)) return;
    const fields: Partial<CollectorEvent> = { errorType: 'Error', message: truncate(message, fieldLimits.message) };
    // A thrown string has no stack; where it was thrown still tells one such throw from another.
    if (event.filename)
      fields.stack = `${fields.message}\n    at ${event.filename}:${event.lineno ?? 0}:${event.colno ?? 0}`;
    this.capture({ type: 'error', ...fields });
  }

  onUnhandledRejection(reason: unknown): void {
    this.captureException(reason, 'UnhandledRejection');
  }

  /** A <script>, <img> or <link> that did not load. Grouped by the resource's path, as failed requests are. */
  onResourceError(tag: string, url: string): void {
    if (!url) return;
    const message = `Failed to load ${tag} ${truncate(url, fieldLimits.url)}`;
    const fingerprint = computeFingerprint({
      errorType: 'ResourceError',
      message,
      request: { method: 'GET', url, status: 0 },
    });
    this.capture({ type: 'error', errorType: 'ResourceError', message }, fingerprint);
  }

  onRequest(request: FinishedRequest): void {
    if (this.closed || this.isOwnRequest(request.url)) return;
    const method = methodOf(request.method);
    const url = truncate(request.url, fieldLimits.url);
    const durationMs = Math.max(0, Math.min(86_400_000, Math.round(request.durationMs)));
    const status = request.aborted ? 0 : request.status;
    if (!request.aborted && this.options.isFailedRequest(status)) {
      const captured = this.capture({ type: 'request', request: { method, url, status, durationMs } });
      if (captured && typeof request.error === 'object' && request.error !== null) this.captured.add(request.error);
    }
    // After the capture: a request's event does not list itself among its breadcrumbs.
    const level = request.aborted
      ? 'warning'
      : status === 0 || status >= 500
        ? 'error'
        : status >= 400
          ? 'warning'
          : 'info';
    this.addBreadcrumb({
      category: request.kind,
      level,
      message: `${method} ${url} ${request.aborted ? '(aborted)' : status === 0 ? '(failed)' : `[${status}]`}`,
      data: { method, url, status, durationMs },
    });
  }

  /** The page is hidden or unloading: hand the queue to the beacon. */
  onPageHidden(): void {
    if (!this.closed) this.sink.flushOnUnload();
  }

  flush(timeoutMs?: number): Promise<boolean> {
    return this.sink.flush(timeoutMs);
  }

  /** Sends what is queued (waiting at most `timeoutMs`), then stops capturing for good. */
  async close(timeoutMs?: number): Promise<boolean> {
    if (this.closed) return true;
    this.closed = true;
    const flushed = await this.sink.flush(timeoutMs);
    this.sink.close();
    return flushed;
  }

  private capture(
    fields: Partial<CollectorEvent> & Pick<CollectorEvent, 'type'>,
    fingerprint?: string,
  ): string | undefined {
    if (this.closed || this.capturing) return undefined;
    if (!(this.random() < this.options.sampleRate)) return undefined;
    this.capturing = true;
    try {
      const { options, identity, page } = this;
      let event: CollectorEvent = {
        eventId: newEventId(),
        timestamp: Date.now(),
        platform: 'web',
        sdkVersion: SDK_VERSION,
        sessionId: identity.sessionId,
        anonymousId: identity.anonymousId,
        ...fields,
        // Computed here with the server's own function; sending it lets beforeSend override the grouping.
        fingerprint: fingerprint ?? fingerprintOf(fields),
      };
      const breadcrumbs = this.breadcrumbs.snapshot();
      if (breadcrumbs.length > 0) event.breadcrumbs = breadcrumbs;
      const url = page.url();
      if (url) event.url = truncate(url, fieldLimits.url);
      const userAgent = page.userAgent();
      if (userAgent) event.userAgent = truncate(userAgent, fieldLimits.userAgent);
      if (options.release) event.release = options.release;
      if (options.environment) event.environment = options.environment;
      const { tags, user, contexts, extra } = this.scope;
      if (tags) event.tags = tags;
      if (user) event.user = user;
      if (contexts && Object.keys(contexts).length > 0) event.contexts = contexts;
      if (extra) event.extra = extra;
      if (options.beforeSend) {
        let result: ReturnType<NonNullable<ResolvedOptions['beforeSend']>>;
        try {
          result = options.beforeSend(event);
        } catch {
          // beforeSend is often where personal data is scrubbed: an event it failed on is not sent unscrubbed.
          return undefined;
        }
        if (!result || typeof result !== 'object') return undefined;
        event = result;
      }
      return this.sink.enqueue(event) ? event.eventId : undefined;
    } finally {
      this.capturing = false;
    }
  }
}
