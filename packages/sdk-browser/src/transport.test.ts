// The transport against a scripted fetch and beacon, on fake timers: batching, backoff, Retry-After, drops, the unload
// beacon.
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  BACKOFF_MAX_MS,
  type FetchLike,
  KEEPALIVE_MAX_BYTES,
  RATE_LIMIT_DEFAULT_SECONDS,
  retryAfterSeconds,
  Transport,
  type TransportOptions,
  utf8Length,
} from './transport';

const URL = 'https://collector.example/api/events/batch';

interface Sent {
  body: { appKey: string; events: Array<{ eventId: string }> };
  keepalive: boolean;
  contentType: string | undefined;
}

/** A fetch whose answers the test decides: a status, a status with Retry-After, or a network error. */
function fakeCollector() {
  type Answer = number | { status: number; retryAfter?: string } | 'network';
  const answers: Answer[] = [];
  const sent: Sent[] = [];
  let fallback: Answer = 200;
  const fetch: FetchLike = async (_url, init) => {
    sent.push({ body: JSON.parse(init.body), keepalive: init.keepalive, contentType: init.headers['content-type'] });
    const answer = answers.shift() ?? fallback;
    if (answer === 'network') throw new TypeError('Failed to fetch');
    const { status, retryAfter } = typeof answer === 'number' ? { status: answer, retryAfter: undefined } : answer;
    return {
      status,
      headers: { get: (name: string) => (name.toLowerCase() === 'retry-after' ? (retryAfter ?? null) : null) },
    };
  };
  return {
    fetch,
    sent,
    answer: (...next: Answer[]) => answers.push(...next),
    always: (answer: Answer) => {
      fallback = answer;
    },
    eventIds: () => sent.flatMap((request) => request.body.events.map((event) => event.eventId)),
  };
}

let sequence = 0;
const event = (extra: Record<string, unknown> = {}) => ({
  eventId: `evt_${++sequence}`,
  type: 'error',
  timestamp: 1,
  ...extra,
});

function transport(collector: ReturnType<typeof fakeCollector>, options: Partial<TransportOptions> = {}) {
  // random() = 1 makes the jitter factor exactly 1: delays are the nominal backoff.
  return new Transport({
    url: URL,
    appKey: 'web_abc',
    fetch: collector.fetch,
    random: () => 1,
    flushIntervalMs: 5000,
    ...options,
  });
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('batching', () => {
  it('waits the flush interval for a lone event, then sends it as text/plain', async () => {
    const collector = fakeCollector();
    const sink = transport(collector);
    sink.enqueue(event());
    await vi.advanceTimersByTimeAsync(4999);
    expect(collector.sent).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(collector.sent).toHaveLength(1);
    expect(collector.sent[0]?.body.appKey).toBe('web_abc');
    expect(collector.sent[0]?.contentType).toBe('text/plain;charset=UTF-8');
    expect(sink.stats.sent).toBe(1);
  });

  it('sends at once when 50 are queued, never more than 50 a request, one request at a time', async () => {
    const collector = fakeCollector();
    const sink = transport(collector, { maxQueueSize: 500 });
    for (let i = 0; i < 120; i++) sink.enqueue(event());
    // Each answer lets the next batch go (a zero-delay timer), well before the 5 s interval.
    await vi.advanceTimersByTimeAsync(10);
    expect(collector.sent.map((request) => request.body.events.length)).toEqual([50, 50, 20]);
    expect(new Set(collector.eventIds()).size).toBe(120);
    expect(sink.pending).toBe(0);
  });

  it('drops an event that cannot be serialized, and only that one', async () => {
    const collector = fakeCollector();
    const sink = transport(collector);
    const circular: Record<string, unknown> = event();
    circular.self = circular;
    expect(sink.enqueue(circular)).toBe(false);
    expect(sink.enqueue(event())).toBe(true);
    await sink.flush();
    expect(collector.sent).toHaveLength(1);
    expect(sink.stats.dropped).toBe(1);
  });
});

describe('bounded queue', () => {
  it('keeps the oldest events and drops new ones beyond maxQueueSize, counting those in flight', async () => {
    const collector = fakeCollector();
    collector.always('network');
    const sink = transport(collector, { maxQueueSize: 10, flushIntervalMs: 0 });
    for (let i = 0; i < 10; i++) expect(sink.enqueue(event())).toBe(true);
    await vi.advanceTimersByTimeAsync(0); // all 10 now in flight and failed back into the queue
    expect(sink.enqueue(event())).toBe(false);
    expect(sink.pending).toBe(10);
    expect(sink.stats.dropped).toBe(1);
  });
});

describe('retries', () => {
  it('backs off exponentially on network errors, up to a minute, resending the same events', async () => {
    const collector = fakeCollector();
    collector.always('network');
    const sink = transport(collector, { flushIntervalMs: 0 });
    const first = event();
    sink.enqueue(first);
    await vi.advanceTimersByTimeAsync(0);
    const times: number[] = [];
    const start = Date.now();
    while (collector.sent.length < 10) {
      const before = collector.sent.length;
      await vi.advanceTimersByTimeAsync(1000);
      if (collector.sent.length > before) times.push(Date.now() - start);
    }
    const gaps = times.map((time, i) => time - (i === 0 ? 0 : (times[i - 1] ?? 0)));
    expect(gaps.slice(0, 6)).toEqual([1000, 2000, 4000, 8000, 16000, 32000]);
    expect(gaps.slice(6).every((gap) => gap === BACKOFF_MAX_MS)).toBe(true);
    expect(new Set(collector.eventIds())).toEqual(new Set([first.eventId]));
    // Recovery: the next attempt succeeds and the backoff is forgotten.
    collector.always(200);
    await vi.advanceTimersByTimeAsync(BACKOFF_MAX_MS);
    expect(sink.pending).toBe(0);
    sink.enqueue(event());
    await vi.advanceTimersByTimeAsync(0);
    expect(collector.sent.at(-1)?.body.events).toHaveLength(1);
  });

  it('jitters the backoff between half and all of it', async () => {
    const collector = fakeCollector();
    collector.answer('network');
    const sink = transport(collector, { flushIntervalMs: 0, random: () => 0 });
    sink.enqueue(event());
    await vi.advanceTimersByTimeAsync(0);
    await vi.advanceTimersByTimeAsync(499);
    expect(collector.sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(collector.sent).toHaveLength(2);
  });

  it('on 503 waits for Retry-After when it is longer than the backoff', async () => {
    const collector = fakeCollector();
    collector.answer({ status: 503, retryAfter: '7' });
    const sink = transport(collector, { flushIntervalMs: 0 });
    sink.enqueue(event());
    await vi.advanceTimersByTimeAsync(6999);
    expect(collector.sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(collector.sent).toHaveLength(2);
    expect(sink.stats.sent).toBe(1);
  });

  it('on 429 sends nothing until Retry-After has passed, then resends the batch', async () => {
    const collector = fakeCollector();
    collector.answer({ status: 429, retryAfter: '30' });
    const sink = transport(collector, { flushIntervalMs: 0 });
    const first = event();
    sink.enqueue(first);
    await vi.advanceTimersByTimeAsync(0);
    // New events while rate limited are queued, not sent.
    sink.enqueue(event());
    await vi.advanceTimersByTimeAsync(29_999);
    expect(collector.sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(collector.sent).toHaveLength(2);
    expect(collector.sent[1]?.body.events.map((sent) => sent.eventId)[0]).toBe(first.eventId);
    expect(sink.pending).toBe(0);
  });

  it('on 429 without a readable Retry-After (CORS hides it) waits the default', async () => {
    const collector = fakeCollector();
    collector.answer(429);
    const sink = transport(collector, { flushIntervalMs: 0 });
    sink.enqueue(event());
    await vi.advanceTimersByTimeAsync(RATE_LIMIT_DEFAULT_SECONDS * 1000 - 1);
    expect(collector.sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(collector.sent).toHaveLength(2);
  });

  it('drops the batch on other 4xx and on 500, and goes on with the next', async () => {
    for (const status of [400, 403, 415, 500]) {
      const collector = fakeCollector();
      collector.answer(status);
      const sink = transport(collector, { flushIntervalMs: 0 });
      sink.enqueue(event());
      await vi.advanceTimersByTimeAsync(0);
      await vi.advanceTimersByTimeAsync(120_000);
      expect(collector.sent).toHaveLength(1);
      expect(sink.stats.dropped).toBe(1);
      sink.enqueue(event());
      await vi.advanceTimersByTimeAsync(0);
      expect(collector.sent).toHaveLength(2);
    }
  });

  it('on 413 halves the batch until one fits, and drops a single event that never fits', async () => {
    const collector = fakeCollector();
    collector.answer(413, 413);
    const sink = transport(collector, { flushIntervalMs: 0, maxQueueSize: 100 });
    for (let i = 0; i < 50; i++) sink.enqueue(event());
    await vi.advanceTimersByTimeAsync(10);
    // A success restores batches of 50 for what is left: one oversized stretch of events should not slow the page for
    // good.
    expect(collector.sent.map((request) => request.body.events.length)).toEqual([50, 25, 13, 37]);
    expect(new Set(collector.eventIds()).size).toBe(50);
    expect(sink.stats.sent).toBe(50);

    const lone = fakeCollector();
    lone.answer(413);
    const single = transport(lone, { flushIntervalMs: 0 });
    single.enqueue(event());
    await vi.advanceTimersByTimeAsync(10_000);
    expect(lone.sent).toHaveLength(1);
    expect(single.stats.dropped).toBe(1);
  });

  it('makes a bounded number of requests in a flush while the collector is down (no tight loop)', async () => {
    const collector = fakeCollector();
    collector.always('network');
    const sink = transport(collector);
    sink.enqueue(event());
    const flushed = sink.flush(10_000);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await flushed).toBe(false);
    // 0, 1 s, 3 s, 7 s: four attempts in ten seconds.
    expect(collector.sent).toHaveLength(4);
  });

  it('flush resolves true once everything is delivered', async () => {
    const collector = fakeCollector();
    collector.answer('network');
    const sink = transport(collector);
    sink.enqueue(event());
    sink.enqueue(event());
    const flushed = sink.flush(5000);
    await vi.advanceTimersByTimeAsync(1000);
    expect(await flushed).toBe(true);
    expect(collector.sent.map((request) => request.body.events.length)).toEqual([2, 2]);
  });
});

describe('unload', () => {
  it('hands the queue to sendBeacon in chunks that fit its quota, and sends nothing twice', async () => {
    const collector = fakeCollector();
    const beacons: string[] = [];
    const sink = transport(collector, {
      maxQueueSize: 200,
      sendBeacon: (url, body) => {
        expect(url).toBe(URL);
        beacons.push(body);
        return true;
      },
    });
    const stack = 'x'.repeat(2000);
    for (let i = 0; i < 60; i++) sink.enqueue(event({ stack }));
    // 60 queued: 50 went at once (in flight), 10 wait for the interval.
    sink.flushOnUnload();
    expect(beacons.length).toBeGreaterThan(0);
    for (const body of beacons) expect(utf8Length(body)).toBeLessThanOrEqual(KEEPALIVE_MAX_BYTES);
    const beaconed = beacons.flatMap((body) => (JSON.parse(body) as Sent['body']).events.map((sent) => sent.eventId));
    await vi.advanceTimersByTimeAsync(60_000);
    const all = [...collector.eventIds(), ...beaconed];
    expect(all).toHaveLength(60);
    expect(new Set(all).size).toBe(60);
    expect(sink.pending).toBe(0);
  });

  it('falls back to a keepalive fetch when sendBeacon refuses', async () => {
    const collector = fakeCollector();
    const sink = transport(collector, { sendBeacon: () => false });
    sink.enqueue(event());
    sink.flushOnUnload();
    await vi.advanceTimersByTimeAsync(0);
    expect(collector.sent).toHaveLength(1);
    expect(collector.sent[0]?.keepalive).toBe(true);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(collector.sent).toHaveLength(1);
  });

  it('keeps quiet while rate limited', async () => {
    const collector = fakeCollector();
    collector.answer({ status: 429, retryAfter: '60' });
    let beacons = 0;
    const sink = transport(collector, {
      flushIntervalMs: 0,
      sendBeacon: () => {
        beacons++;
        return true;
      },
    });
    sink.enqueue(event());
    await vi.advanceTimersByTimeAsync(0);
    sink.flushOnUnload();
    expect(beacons).toBe(0);
  });
});

describe('helpers', () => {
  it('counts UTF-8 bytes as Buffer does', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        // Lone surrogates are written as U+FFFD (3 bytes) by both.
        expect(utf8Length(text)).toBe(Buffer.byteLength(text, 'utf8'));
      }),
    );
  });

  it('reads Retry-After with the domain parser, bounded to an hour', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterSeconds('12', now)).toBe(12);
    expect(retryAfterSeconds('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30);
    expect(retryAfterSeconds('999999', now)).toBe(3600);
    expect(retryAfterSeconds('Fri, 01 Jan 2027 00:00:00 GMT', now)).toBe(3600);
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
    expect(retryAfterSeconds(null, now)).toBeUndefined();
  });
});
