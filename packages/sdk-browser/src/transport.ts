// Delivery to POST /api/events/batch: a bounded queue, batches of at most 50 sent one request at a time, backoff on
// network errors and 5xx outages, Retry-After on 429, and a last send by beacon when the page goes away.
// Only zod-free subpaths of the domain are imported: the package root would bring zod into the bundle.
import { limits } from '@collector/domain/limits';
import { parseRetryAfter } from '@collector/domain/retry-after';

interface TransportResponse {
  status: number;
  headers: { get(name: string): string | null };
}

export type FetchLike = (
  url: string,
  init: { method: 'POST'; body: string; headers: Record<string, string>; keepalive: boolean; credentials: 'omit' },
) => Promise<TransportResponse>;

/** navigator.sendBeacon with a string body: sent as text/plain;charset=UTF-8, which the collector takes. */
type BeaconLike = (url: string, body: string) => boolean;

export interface TransportOptions {
  /** The collector's ingestion URL, .../api/events/batch. */
  url: string;
  appKey: string;
  fetch: FetchLike;
  sendBeacon?: BeaconLike | undefined;
  /** How long an event may wait for others to share its request. */
  flushIntervalMs?: number;
  /** Events held at most (queued and in flight); beyond it new events are dropped. */
  maxQueueSize?: number;
  /** For the backoff's jitter; injectable so tests are exact. */
  random?: () => number;
}

const BATCH_MAX_EVENTS: number = limits.batchMaxEvents;
/** The events' JSON may fill the collector's 1 MiB but for the envelope: `{"appKey":...,"events":[...]}` and the commas. */
const ENVELOPE_MARGIN_BYTES = 4 * 1024;
const BATCH_MAX_BYTES = limits.ingestBodyBytes - ENVELOPE_MARGIN_BYTES;
/** Browsers allow 64 KiB of keepalive and beacon bodies in flight per page: a regular send that stays under half of it leaves room for the unload beacon. */
export const KEEPALIVE_MAX_BYTES = 30_000;
const KEEPALIVE_LIMIT_BYTES = 64 * 1024;
const BACKOFF_BASE_MS = 1000;
export const BACKOFF_MAX_MS = 60_000;
/** A 429 whose Retry-After a page cannot read (a cross-origin header not exposed by CORS) waits this long. */
export const RATE_LIMIT_DEFAULT_SECONDS = 60;
const RETRY_AFTER_MAX_SECONDS = 3600;
/** Outages that pass: the gateway or the database is back soon. A 500 is a bug that the same batch would hit again. */
const RETRYABLE_STATUSES = [502, 503, 504];

interface Queued {
  json: string;
  bytes: number;
}

export interface TransportStats {
  /** Events the collector answered 2xx for, or handed to a beacon. */
  sent: number;
  /** Events given up on: queue full, unserializable, refused by the collector. */
  dropped: number;
  /** Requests that failed in a way worth retrying. */
  retries: number;
}

/** Bytes of `text` as UTF-8: the collector's limits and the browser's keepalive quota count bytes, not characters. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A surrogate pair: two units, one 4-byte character.
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** Seconds the collector asked to wait, at most an hour (a page that waited longer would lose its queue to a reload anyway). */
export function retryAfterSeconds(value: string | null, now: number): number | undefined {
  const seconds = parseRetryAfter(value, now);
  return seconds === undefined ? undefined : Math.min(RETRY_AFTER_MAX_SECONDS, seconds);
}

type Outcome = { status: number; retryAfterSeconds: number | undefined };

export class Transport {
  private readonly queue: Queued[] = [];
  /** Events handed to a request that has not answered yet: they count against the queue's bound. */
  private inFlight = 0;
  private readonly posts = new Set<Promise<void>>();
  /** The scheduled send's request, if one is out: scheduled sends go one at a time. */
  private sending: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  /** No scheduled send before this time: backoff, or the server's Retry-After. */
  private notBefore = 0;
  /** A 429 also silences the unload beacon: the server asked for quiet. */
  private rateLimitedUntil = 0;
  private failures = 0;
  /** Halved when the collector answers 413, back to 50 after a success. */
  private batchLimit = BATCH_MAX_EVENTS;
  private closed = false;
  private readonly flushIntervalMs: number;
  private readonly maxQueueSize: number;
  private readonly random: () => number;
  readonly stats: TransportStats = { sent: 0, dropped: 0, retries: 0 };

  constructor(private readonly options: TransportOptions) {
    this.flushIntervalMs = Math.max(0, options.flushIntervalMs ?? 5000);
    this.maxQueueSize = Math.max(1, options.maxQueueSize ?? 100);
    this.random = options.random ?? Math.random;
  }

  /** Queues one event; false when it was dropped (queue full, closed, or it cannot be serialized). */
  enqueue(event: unknown): boolean {
    if (this.closed || this.queue.length + this.inFlight >= this.maxQueueSize) {
      // The oldest events are kept: the first error of a cascade is usually the one that explains the rest.
      this.stats.dropped++;
      return false;
    }
    let json: string;
    try {
      // Serialized now, so later changes to the page's objects cannot alter (or break) what was captured.
      json = JSON.stringify(event);
    } catch {
      this.stats.dropped++;
      return false;
    }
    this.queue.push({ json, bytes: utf8Length(json) });
    this.schedule(this.queue.length >= this.batchLimit ? 0 : this.flushIntervalMs);
    return true;
  }

  get pending(): number {
    return this.queue.length + this.inFlight;
  }

  /** Sends what is queued, as fast as the server allows; true when nothing is left within `timeoutMs`. */
  async flush(timeoutMs = 2000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.pending === 0) return true;
      const now = Date.now();
      if (now >= deadline || this.closed) return false;
      if (this.posts.size > 0) {
        await Promise.race([...this.posts, sleep(deadline - now)]);
      } else if (now < this.notBefore) {
        if (this.notBefore >= deadline) return false;
        await sleep(this.notBefore - now);
      } else {
        this.send();
      }
    }
  }

  /**
   * The page is going away (pagehide, or hidden and maybe never shown again): hand everything queued to
   * sendBeacon, which outlives the page, else to a keepalive fetch. What neither takes stays queued, for
   * a page that comes back.
   */
  flushOnUnload(): void {
    if (this.closed || this.queue.length === 0 || Date.now() < this.rateLimitedUntil) return;
    const pending = this.queue.splice(0);
    const kept: Queued[] = [];
    while (pending.length > 0) {
      const batch = takeBatch(pending, this.batchLimit, KEEPALIVE_MAX_BYTES);
      const body = this.bodyOf(batch);
      if (this.beacon(body)) {
        this.stats.sent += batch.length;
        continue;
      }
      if (utf8Length(body) <= KEEPALIVE_LIMIT_BYTES) this.post(batch, body, true);
      else kept.push(...batch);
    }
    this.queue.unshift(...kept);
  }

  /** Stops sending; what is still queued is dropped. */
  close(): void {
    this.closed = true;
    this.clearTimer();
    this.stats.dropped += this.queue.length;
    this.queue.length = 0;
  }

  private beacon(body: string): boolean {
    try {
      return this.options.sendBeacon?.(this.options.url, body) ?? false;
    } catch {
      // Some browsers throw for bodies over their quota instead of returning false.
      return false;
    }
  }

  private schedule(delayMs: number): void {
    if (this.closed || this.queue.length === 0) return;
    const at = Math.max(Date.now() + delayMs, this.notBefore);
    // A send in flight reschedules when it is answered; an earlier timer picks this event up too.
    if (this.sending || at >= this.timerAt) return;
    this.clearTimer();
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Number.POSITIVE_INFINITY;
      this.send();
    }, at - Date.now());
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
  }

  private send(): void {
    if (this.closed || this.sending || this.queue.length === 0) return;
    if (Date.now() < this.notBefore) {
      this.schedule(0);
      return;
    }
    this.clearTimer();
    const batch = takeBatch(this.queue, this.batchLimit, BATCH_MAX_BYTES);
    const body = this.bodyOf(batch);
    // keepalive lets a send that is out when the page closes still arrive; browsers refuse it for large bodies.
    const sending = this.post(batch, body, utf8Length(body) <= KEEPALIVE_MAX_BYTES).then(() => {
      this.sending = undefined;
      // Whatever queued up meanwhile has waited long enough; schedule() still honours backoff and Retry-After.
      this.schedule(0);
    });
    this.sending = sending;
  }

  private post(batch: Queued[], body: string, keepalive: boolean): Promise<void> {
    this.inFlight += batch.length;
    const request = this.options
      .fetch(this.options.url, {
        method: 'POST',
        body,
        // text/plain is a "simple" cross-origin request: no CORS preflight before every batch.
        headers: { 'content-type': 'text/plain;charset=UTF-8' },
        keepalive,
        credentials: 'omit',
      })
      .then(
        (response): Outcome => ({
          status: response.status,
          retryAfterSeconds: retryAfterSeconds(readHeader(response, 'retry-after'), Date.now()),
        }),
        (): Outcome => ({ status: 0, retryAfterSeconds: undefined }),
      )
      .then((outcome) => {
        this.inFlight -= batch.length;
        this.settle(batch, outcome);
      });
    const tracked = request.finally(() => this.posts.delete(tracked));
    this.posts.add(tracked);
    return tracked;
  }

  private settle(batch: Queued[], { status, retryAfterSeconds }: Outcome): void {
    const now = Date.now();
    if (status >= 200 && status < 300) {
      // Events the collector rejected one by one (listed in `rejected`) would be rejected again: nothing to retry.
      this.failures = 0;
      this.batchLimit = BATCH_MAX_EVENTS;
      this.stats.sent += batch.length;
    } else if (status === 0 || RETRYABLE_STATUSES.includes(status)) {
      this.failures++;
      this.stats.retries++;
      const backoff = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (this.failures - 1));
      // Jitter: when the collector comes back, the pages that waited for it do not all retry in the same second.
      const delay = Math.max(backoff * (0.5 + this.random() * 0.5), (retryAfterSeconds ?? 0) * 1000);
      this.notBefore = Math.max(this.notBefore, now + delay);
      this.requeue(batch);
    } else if (status === 429) {
      this.stats.retries++;
      this.notBefore = this.rateLimitedUntil = now + (retryAfterSeconds ?? RATE_LIMIT_DEFAULT_SECONDS) * 1000;
      this.requeue(batch);
    } else if (status === 413 && batch.length > 1) {
      this.stats.retries++;
      this.batchLimit = Math.ceil(batch.length / 2);
      this.requeue(batch);
    } else {
      // Other 4xx (unknown appKey, validation) and 500: the same request would fail the same way.
      this.stats.dropped += batch.length;
    }
  }

  private requeue(batch: Queued[]): void {
    if (this.closed) {
      this.stats.dropped += batch.length;
      return;
    }
    this.queue.unshift(...batch);
  }

  private bodyOf(batch: Queued[]): string {
    return `{"appKey":${JSON.stringify(this.options.appKey)},"events":[${batch.map((event) => event.json).join(',')}]}`;
  }
}

/** Removes and returns the first events of `queue` that fit: at least one, at most `maxEvents` and `maxBytes` together. */
function takeBatch(queue: Queued[], maxEvents: number, maxBytes: number): Queued[] {
  let count = 0;
  let bytes = 0;
  while (count < queue.length && count < maxEvents) {
    const size = queue[count]?.bytes ?? 0;
    if (count > 0 && bytes + size > maxBytes) break;
    bytes += size;
    count++;
  }
  return queue.splice(0, count);
}

function readHeader(response: TransportResponse, name: string): string | null {
  try {
    return response.headers.get(name);
  } catch {
    return null;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
