import { readdirSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { framesOf, judgeEvent, type StoredEvent } from '../event';
import { computeFingerprint } from '../fingerprint';
import { limits } from '../limits';
import { presentEvent, storedPayload } from '../stored-event';
import { anonymousIdFor, fromSentryEvent, sentryTimestamp } from './event';

// Events the real SDKs sent (services/collector/test/fixtures/sentry, captured by capture.ts there).
const fixtures = new URL('../../../../services/collector/test/fixtures/sentry/', import.meta.url);
type Json = Record<string, unknown>;

function fixtureEvents(): Array<{ file: string; event: Json }> {
  const found: Array<{ file: string; event: Json }> = [];
  for (const file of readdirSync(fixtures)) {
    if (!/\.(envelope|store)(\.gz)?$/.test(file)) continue;
    const raw = readFileSync(new URL(file, fixtures));
    const text = (file.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8');
    if (file.includes('.store')) {
      found.push({ file, event: JSON.parse(text) });
      continue;
    }
    // These envelopes hold items without `length`, one JSON line each: header, item header, payload...
    const lines = text.split('\n').filter((line) => line !== '');
    for (let i = 1; i + 1 < lines.length; i += 2) {
      if (JSON.parse(lines[i] as string).type === 'event')
        found.push({ file, event: JSON.parse(lines[i + 1] as string) });
    }
  }
  return found;
}

const RECEIVED_AT = Date.parse('2026-11-23T01:00:00Z');
const APP_KEY = 'node_0123456789abcdef';

function judged(event: Json): StoredEvent {
  const verdict = judgeEvent(fromSentryEvent(event, { receivedAt: RECEIVED_AT, eventId: 'generated' }), {
    appKey: APP_KEY,
    receivedAt: RECEIVED_AT,
    source: 'sentry',
  });
  if (!verdict.ok) throw new Error(`rejected: ${verdict.message}`);
  return verdict.event;
}

function fixtureWith(message: string): { file: string; event: StoredEvent } {
  const match = fixtureEvents()
    .map(({ file, event }) => ({ file, event: judged(event) }))
    .find(({ event }) => event.message === message);
  if (!match) throw new Error(`no fixture event with message ${message}`);
  return match;
}

describe('fromSentryEvent on what the real SDKs send', () => {
  it('accepts every captured event', () => {
    const events = fixtureEvents();
    expect(events.length).toBeGreaterThanOrEqual(10);
    for (const { event } of events) expect(judged(event).eventId).toBe(`evt_${event.event_id}`);
  });

  it('@sentry/node: the exception, its frames innermost first, user, release, breadcrumbs', () => {
    const { event } = fixtureWith('card declined for amount 1999');
    expect(event).toMatchObject({
      type: 'error',
      errorType: 'TypeError',
      platform: 'node',
      sdkVersion: '11.12.0',
      release: 'shop-api@2.1.0',
      environment: 'staging',
      level: 'error',
      anonymousId: 'anon_node-user-7',
    });
    const lines = event.stack?.split('\n') ?? [];
    expect(lines[0]).toBe('TypeError: card declined for amount 1999');
    expect(lines[1]).toMatch(/^ {4}at chargeCard \(\/.*node-client\.mjs:11:9\)$/);
    expect(lines[2]).toMatch(/^ {4}at checkout \(/);
    expect(framesOf(event)?.[0]).toMatchObject({ function: 'chargeCard', line: 11, column: 9, inApp: true });
    expect(framesOf(event)?.at(-1)).toMatchObject({ inApp: false, file: 'node:internal/modules/run_main' });
    expect(event.breadcrumbs?.some((crumb) => crumb.message === 'added item 42' && crumb.category === 'cart')).toBe(
      true,
    );
    // Grouped by the same rule as the batch endpoint's events: type, message and top frames.
    expect(event.fingerprint).toBe(
      computeFingerprint({ errorType: 'TypeError', message: event.message, stack: event.stack }),
    );
  });

  it('@sentry/node: captureMessage is a Message with its level', () => {
    const { event } = fixtureWith('inventory sync finished late');
    expect(event).toMatchObject({ type: 'error', errorType: 'Message', level: 'warning' });
  });

  it('@sentry/node: a client fingerprint list with {{ default }} makes its own group', () => {
    const { event } = fixtureWith('refund exceeds charge');
    const serverOwn = computeFingerprint({ errorType: 'RangeError', message: event.message, stack: event.stack });
    expect(event.fingerprint).toMatch(/^RangeError:[0-9a-f]{16}$/);
    expect(event.fingerprint).not.toBe(serverOwn);
  });

  it('@sentry/node: the event over 32 KiB, sent gzipped', () => {
    const { file, event } = fixtureWith('cart too large to save');
    expect(file).toMatch(/\.gz$/);
    expect(event.errorType).toBe('Error');
  });

  it('python sentry-sdk: RFC 3339 timestamps without a zone, breadcrumbs as { values }, user.id', () => {
    const { event } = fixtureWith("invalid literal for int() with base 10: '12a'");
    expect(event).toMatchObject({
      errorType: 'ValueError',
      platform: 'python',
      sdkVersion: '1.9.10',
      release: 'billing@3.0.1',
      anonymousId: 'anon_py-user-3',
    });
    expect(framesOf(event)?.[0]).toMatchObject({
      function: 'parse_invoice',
      file: 'python-client.py',
      line: 13,
      inApp: true,
    });
    expect(event.breadcrumbs?.[0]).toMatchObject({ category: 'db', message: 'select invoices' });
    expect(event.breadcrumbs?.[0]?.timestamp).toBeGreaterThan(RECEIVED_AT - 30 * 86_400_000);
    expect(fixtureWith('nightly export skipped').event).toMatchObject({ errorType: 'Message', level: 'warning' });
  });

  it('@sentry/browser: uncaught error, unhandled rejection, message and a failed fetch', () => {
    const uncaught = fixtureWith("Cannot read properties of undefined (reading 'items')").event;
    expect(uncaught).toMatchObject({
      type: 'error',
      errorType: 'TypeError',
      platform: 'javascript',
      anonymousId: 'anon_browser-user-1',
    });
    expect(uncaught.url).toMatch(/\/checkout\?step=2$/);
    expect(uncaught.userAgent).toMatch(/HeadlessChrome/);
    expect(framesOf(uncaught)?.[0]).toMatchObject({ function: 'renderCart', inApp: true });
    expect(fixtureWith('payment declined').event.errorType).toBe('Error');
    // captureMessage attaches a synthetic exception, without a type, only to carry a stack.
    expect(fixtureWith('checkout opened without items').event).toMatchObject({ errorType: 'Message', level: 'info' });
    const failed = fixtureWith('HTTP Client Error with status code: 500').event;
    expect(failed).toMatchObject({ type: 'request', request: { method: 'GET', status: 500 } });
    expect(failed.request?.url).toMatch(/\/api\/stock\?item=42$/);
  });
});

describe('fromSentryEvent, field by field', () => {
  const map = (event: Json) => fromSentryEvent(event, { receivedAt: RECEIVED_AT, eventId: 'fallback' });

  it('takes float seconds and RFC 3339; a missing or unreadable timestamp is the time of receipt', () => {
    expect(sentryTimestamp(1_795_395_408.291)).toBe(1_795_395_408_291);
    expect(sentryTimestamp('2026-11-23T00:56:43.586460Z')).toBe(Date.parse('2026-11-23T00:56:43.586Z'));
    expect(sentryTimestamp('2026-11-23T00:56:43.586460')).toBe(Date.parse('2026-11-23T00:56:43.586Z'));
    expect(sentryTimestamp('2026-11-23T02:56:43+02:00')).toBe(Date.parse('2026-11-23T00:56:43Z'));
    for (const value of [undefined, 'yesterday', '1795395408', Number.NaN, {}, null])
      expect(map({ timestamp: value }).timestamp).toBe(RECEIVED_AT);
  });

  it('the event id: its own, else the one given', () => {
    expect(map({ event_id: 'abc' }).eventId).toBe('evt_abc');
    expect(map({}).eventId).toBe('evt_fallback');
  });

  it('the main exception is the last of the chain; the causes follow it in the stack text', () => {
    const frame = (fn: string) => ({ stacktrace: { frames: [{ function: fn, filename: 'app.js', lineno: 1 }] } });
    const event = map({
      exception: {
        values: [
          { type: 'IOError', value: 'disk full', ...frame('write') },
          { type: 'SaveError', value: 'could not save', ...frame('save') },
        ],
      },
    });
    expect(event).toMatchObject({ errorType: 'SaveError', message: 'could not save' });
    expect(event.stack).toBe(
      'SaveError: could not save\n    at save (app.js:1)\nCaused by: IOError: disk full\n    at write (app.js:1)',
    );
    expect(framesOf(event)).toEqual([{ function: 'save', file: 'app.js', line: 1 }]);
  });

  it('message from message, message.formatted, logentry.formatted or logentry.message', () => {
    expect(map({ message: 'a' }).message).toBe('a');
    expect(map({ message: { formatted: 'b' } }).message).toBe('b');
    expect(map({ logentry: { formatted: 'c', message: 'c %s' } }).message).toBe('c');
    expect(map({ logentry: { message: 'd %s' } })).toMatchObject({ message: 'd %s', errorType: 'Message' });
  });

  it('the anonymous id: user.id, else e-mail, else address, always within the id pattern and distinct', () => {
    expect(map({ user: { id: 42, email: 'a@b.c' } }).anonymousId).toBe('anon_42');
    expect(map({ user: { email: 'a@b.c', ip_address: '10.0.0.1' } }).anonymousId).toBe(anonymousIdFor('a@b.c'));
    expect(map({ user: { ip_address: '{{auto}}' } }).anonymousId).toBeUndefined();
    expect(anonymousIdFor('a.b')).not.toBe(anonymousIdFor('a_b'));
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 300, unit: 'grapheme' }), (id) => {
        expect(anonymousIdFor(id)).toMatch(/^anon_[A-Za-z0-9_-]{1,128}$/);
      }),
    );
  });

  it('breadcrumbs as a list or { values }, the newest kept when there are too many', () => {
    const crumbs = Array.from({ length: 150 }, (_, i) => ({
      timestamp: 1_795_395_408 + i,
      message: `step ${i}`,
      level: 'warn',
    }));
    const mapped = map({ breadcrumbs: crumbs }).breadcrumbs as Json[];
    expect(mapped).toHaveLength(limits.breadcrumbs);
    expect(mapped.at(-1)).toEqual({ timestamp: (1_795_395_408 + 149) * 1000, message: 'step 149', level: 'warning' });
    expect(map({ breadcrumbs: { values: crumbs.slice(0, 1) } }).breadcrumbs).toHaveLength(1);
  });

  it('keeps at most the innermost frames allowed, with texts cut to their bounds', () => {
    const frames = Array.from({ length: 300 }, (_, i) => ({
      function: `f${i}`.padEnd(400, 'x'),
      filename: 'a.js',
      lineno: i,
    }));
    const event = map({ exception: { values: [{ type: 'E', value: 'v', stacktrace: { frames } }] } });
    const kept = framesOf(event) as Json[];
    expect(kept).toHaveLength(limits.stackFrames);
    expect(kept[0]).toMatchObject({ line: 299 });
    expect((kept[0]!.function as string).length).toBe(limits.frameFunctionChars);
  });

  it('only {{ default }} is the server grouping; any other list groups by itself', () => {
    const base = { exception: { values: [{ type: 'E', value: 'v' }] } };
    expect(map({ ...base, fingerprint: ['{{ default }}'] }).fingerprint).toBeUndefined();
    expect(map({ ...base, fingerprint: ['checkout'] }).fingerprint).toBe(
      map({ message: 'other', fingerprint: ['checkout'], exception: base.exception }).fingerprint,
    );
  });

  it('never throws, whatever JSON it is given, and what it returns is judged without throwing', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom(
            'exception',
            'message',
            'logentry',
            'user',
            'breadcrumbs',
            'request',
            'timestamp',
            'fingerprint',
            'level',
            'sdk',
            'contexts',
            'event_id',
          ),
          fc.jsonValue({ maxDepth: 4 }),
        ),
        (event) => {
          const mapped = map(event);
          judgeEvent(mapped, { appKey: APP_KEY, receivedAt: RECEIVED_AT });
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("fromSentryEvent: Sentry's event data kept", () => {
  it('keeps tags (object or pairs), contexts, extra, user, logger, server name and transaction', () => {
    const event = judged({
      event_id: 'a'.repeat(32),
      message: 'checkout failed',
      tags: [
        ['plan', 'pro'],
        ['retries', 3],
        ['flag', true],
        ['skipped', { nested: 1 }],
      ],
      contexts: { order: { id: 'ord_1', total: 19.99 }, os: { name: 'Linux' }, bogus: 'not an object' },
      extra: { cart: [1, 2] },
      user: { id: 42, email: 'ada@example.com', username: 'ada', ip_address: '203.0.113.9', segment: 'x' },
      logger: 'payments',
      server_name: 'web-1',
      transaction: 'POST /checkout',
    });
    expect(event).toMatchObject({
      tags: { plan: 'pro', retries: '3', flag: 'true' },
      contexts: { order: { id: 'ord_1', total: 19.99 }, os: { name: 'Linux' } },
      extra: { cart: [1, 2] },
      user: { id: '42', email: 'ada@example.com', username: 'ada', ip_address: '203.0.113.9' },
      anonymousId: 'anon_42',
      logger: 'payments',
      serverName: 'web-1',
      transaction: 'POST /checkout',
    });
    expect(event.tags).not.toHaveProperty('skipped');
    expect(event.contexts).not.toHaveProperty('bogus');
  });

  it('keeps the chain cause first with its frames and mechanism, handled from the main exception', () => {
    const frames = (fn: string) => ({
      frames: [
        { function: 'outer', filename: 'app.js', lineno: 1 },
        { function: fn, filename: 'app.js', lineno: 2, context_line: '  throw x;', pre_context: ['a', 'b'] },
      ],
    });
    const event = judged({
      exception: {
        values: [
          { type: 'DbError', value: 'timeout', stacktrace: frames('query'), mechanism: { type: 'chained' } },
          {
            type: 'Error',
            value: 'Checkout failed',
            stacktrace: frames('checkout'),
            mechanism: { type: 'onunhandledrejection', handled: false },
          },
        ],
      },
    });
    expect(event.handled).toBe(false);
    expect(event.exceptions?.map((exception) => exception.type)).toEqual(['DbError', 'Error']);
    expect(event.exceptions?.[1]).toMatchObject({
      value: 'Checkout failed',
      mechanism: { type: 'onunhandledrejection', handled: false },
    });
    expect(event.exceptions?.[0]?.frames[0]).toMatchObject({
      function: 'query',
      contextLine: '  throw x;',
      preContext: ['a', 'b'],
    });
    expect(framesOf(event)?.[0]).toMatchObject({ function: 'checkout' });
    expect(judged({ exception: { values: [{ type: 'E', value: 'v' }] } }).handled).toBeNull();
  });

  it("keeps the request's method, query, headers and data, and a failed request's status", () => {
    const event = judged({
      message: 'boom',
      request: {
        method: 'post',
        url: 'https://shop.example/api/cart',
        query_string: [['page', '2']],
        headers: [
          ['User-Agent', 'curl/8'],
          ['Cookie', 'a=b'],
        ],
        data: { item: 7, password: 'x' },
      },
    });
    expect(event.type).toBe('error');
    expect(event.request).toEqual({
      method: 'POST',
      url: 'https://shop.example/api/cart',
      query: 'page=2',
      headers: { 'user-agent': 'curl/8' },
      data: { item: 7, password: '[Filtered]' },
    });
    expect(event.userAgent).toBe('curl/8');
  });

  it("takes a thread's stack when there is no exception stack (sentry-go's messages)", () => {
    const event = judged({
      message: 'tick',
      threads: {
        values: [
          { id: '1', current: false, stacktrace: { frames: [{ function: 'idle', filename: 'idle.go', lineno: 3 }] } },
          { id: '2', current: true, stacktrace: { frames: [{ function: 'main', filename: 'main.go', lineno: 12 }] } },
        ],
      },
    });
    expect(event.threads).toEqual([
      { name: '2', current: true, frames: [{ function: 'main', file: 'main.go', line: 12 }] },
    ]);
    expect(event.stack).toBe('Message: tick\n    at main (main.go:12)');
    expect(framesOf(event)).toEqual([{ function: 'main', file: 'main.go', line: 12 }]);
  });
});

describe('fromSentryEvent: nesting', () => {
  it('empties what nests too deep in extra and contexts rather than rejecting the event', () => {
    const deep = (levels: number): Json => (levels === 0 ? { leaf: 1 } : { next: deep(levels - 1) });
    const event = judged({ message: 'deep', extra: { data: deep(30) }, contexts: { order: deep(30) } });
    expect(event.message).toBe('deep');
    let node = event.extra as Json;
    let depth = 2; // the event is 1, extra 2
    while (node && Object.keys(node).length > 0) {
      node = (node.next ?? node.data) as Json;
      depth++;
    }
    expect(depth).toBeLessThanOrEqual(limits.nestingDepth);
  });
});

describe('fromSentryEvent: what source maps are looked up by (issue 22)', () => {
  const base = { event_id: 'a'.repeat(32), timestamp: 1_700_000_000, exception: { values: [{ type: 'Error' }] } };
  const judged = (event: Json) => {
    const verdict = judgeEvent(fromSentryEvent(event, { receivedAt: 1_700_000_000_000, eventId: 'b'.repeat(32) }), {
      appKey: 'app_1',
      receivedAt: 1_700_000_000_000,
      source: 'sentry',
    });
    if (!verdict.ok) throw new Error(verdict.message);
    return verdict.event;
  };

  it('keeps dist and the sourcemap images of debug_meta, ids lowercase and hyphenated', () => {
    const event = judged({
      ...base,
      dist: 'web',
      debug_meta: {
        images: [
          {
            type: 'sourcemap',
            code_file: 'http://x.test/app.min.js',
            debug_id: 'C0FFEE00-1111-4222-8333-444455556666',
          },
          { type: 'sourcemap', code_file: '/srv/app.js', debugId: 'c0ffee001111422283334444555566667' },
          { type: 'elf', code_file: '/lib/x.so', debug_id: 'c0ffee00-1111-4222-8333-444455556666' },
          { type: 'sourcemap', code_file: 'http://x.test/b.js', debug_id: 'not an id' },
        ],
      },
    });
    expect(event.dist).toBe('web');
    expect(event.debugImages).toEqual([
      { codeFile: 'http://x.test/app.min.js', debugId: 'c0ffee00-1111-4222-8333-444455556666' },
      { codeFile: '/srv/app.js', debugId: 'c0ffee00-1111-4222-8333-444455556666' },
    ]);
  });

  it('an event without debug_meta has no debugImages', () => {
    expect(judged(base).debugImages).toBeUndefined();
  });
});

describe('a Sentry event stored with its stack as frames (stored-event.ts)', () => {
  /** What the API shows of an event stored as storedPayload makes it, through JSON as the events table keeps it. */
  const shownAfterStoring = (event: StoredEvent) =>
    presentEvent(JSON.parse(JSON.stringify(storedPayload(event))) as StoredEvent);

  it('shows every real SDK event as before, the stack text written again from frames wherever it was', () => {
    const events = fixtureEvents().map(({ event }) => judged(event));
    for (const event of events) expect(shownAfterStoring(event)).toEqual(presentEvent(event));
    const storedAsFrames = events.filter((event) => storedPayload(event).stackFromFrames === true);
    // The Node and browser SDKs' errors and sentry-go's thread stacks, at least.
    expect(storedAsFrames.length).toBeGreaterThanOrEqual(5);
    for (const event of storedAsFrames) expect(storedPayload(event)).not.toHaveProperty('stack');
  });

  it('writes a chain with its causes and a thread stack again exactly', () => {
    const frame = (fn: string) => ({
      stacktrace: { frames: [{ function: fn, filename: 'app.js', lineno: 1, colno: 2 }] },
    });
    const chained = judged({
      exception: {
        values: [
          { type: 'IOError', value: 'disk full', ...frame('write') },
          { type: 'SaveError', value: 'could not save', ...frame('save') },
        ],
      },
    });
    const threaded = judged({
      message: 'tick',
      threads: { values: [{ id: '2', current: true, ...frame('main') }] },
    });
    for (const event of [chained, threaded]) {
      expect(storedPayload(event)).toMatchObject({ stackFromFrames: true });
      expect(shownAfterStoring(event).stack).toBe(event.stack);
    }
    expect(shownAfterStoring(chained).stack).toBe(
      'SaveError: could not save\n    at save (app.js:1:2)\nCaused by: IOError: disk full\n    at write (app.js:1:2)',
    );
  });

  it("keeps a stack text that the frames do not give back: one cut to its limit, a client's own beside its frames", () => {
    const long = judged({
      exception: {
        values: [
          {
            type: 'E',
            value: 'v',
            stacktrace: {
              frames: Array.from({ length: limits.stackFrames }, (_, i) => ({
                function: `f${i}`,
                filename: `${'x'.repeat(limits.frameFileChars - 5)}/a.js`,
                lineno: i,
              })),
            },
          },
        ],
      },
    });
    expect(Buffer.byteLength(long.stack as string)).toBe(limits.stackBytes);
    expect(storedPayload(long)).toBe(long);
    const own = judgeEvent(
      {
        eventId: 'evt_own',
        type: 'error',
        timestamp: RECEIVED_AT,
        message: 'boom',
        stack: 'Error: boom\n    at main (app.js:1:1)',
        exceptions: [{ type: 'Error', value: 'boom', frames: [{ function: 'other', file: 'b.js', line: 9 }] }],
      },
      { appKey: APP_KEY, receivedAt: RECEIVED_AT },
    );
    if (!own.ok) throw new Error(own.message);
    expect(storedPayload(own.event)).toBe(own.event);
    expect(shownAfterStoring(own.event).stack).toBe('Error: boom\n    at main (app.js:1:1)');
  });

  it('shows any event as before, whatever JSON it came from', () => {
    fc.assert(
      fc.property(
        fc.record({
          exception: fc.array(
            fc.record({
              type: fc.string(),
              value: fc.string(),
              stacktrace: fc.record({
                frames: fc.array(
                  fc.record(
                    { function: fc.string(), filename: fc.string(), lineno: fc.nat(), colno: fc.nat() },
                    { requiredKeys: [] },
                  ),
                  { maxLength: 4 },
                ),
              }),
            }),
            { maxLength: 3 },
          ),
          message: fc.string(),
        }),
        (event) => {
          const verdict = judgeEvent(fromSentryEvent(event, { receivedAt: RECEIVED_AT, eventId: 'generated' }), {
            appKey: APP_KEY,
            receivedAt: RECEIVED_AT,
            source: 'sentry',
          });
          if (verdict.ok) expect(shownAfterStoring(verdict.event)).toEqual(presentEvent(verdict.event));
        },
      ),
      { numRuns: 500 },
    );
  });
});
