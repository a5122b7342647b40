import { describe, expect, it } from 'vitest';
import { displayMessage, errorTypeOf, eventSchema, fingerprintsOf, judgeEvent } from './event';
import { computeFingerprint, GROUPING_VERSION } from './fingerprint';
import { limits } from './limits';

const APP_KEY = 'web_0123456789abcdef';
const RECEIVED_AT = 1_700_000_000_000;
const context = { appKey: APP_KEY, receivedAt: RECEIVED_AT };
const utf8Length = (text: string) => new TextEncoder().encode(text).length;

const valid = (extra: Record<string, unknown> = {}) => ({
  eventId: 'evt_abc-123_XYZ',
  type: 'error',
  timestamp: RECEIVED_AT - 5_000,
  errorType: 'TypeError',
  message: 'Cannot read properties of undefined',
  stack: 'TypeError: Cannot read properties of undefined\n    at fn (https://x.test/app.js:1:2)',
  ...extra,
});

function accepted(raw: unknown) {
  const verdict = judgeEvent(raw, context);
  if (!verdict.ok) throw new Error(`expected the event to be accepted, got: ${verdict.message}`);
  return verdict.event;
}

function rejected(raw: unknown) {
  const verdict = judgeEvent(raw, context);
  if (verdict.ok) throw new Error('expected the event to be rejected');
  return verdict;
}

/** An object nested `levels` deep: levels=1 is `{}`. */
function nestedObject(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) value = { child: value };
  return value;
}

describe('judgeEvent: accepted events', () => {
  it('fills in the batch appKey and a computed fingerprint', () => {
    const event = accepted(valid());
    expect(event.appKey).toBe(APP_KEY);
    expect(event.eventId).toBe('evt_abc-123_XYZ');
    expect(event.type).toBe('error');
    expect(event.timestamp).toBe(RECEIVED_AT - 5_000);
    expect(event.clientTimestamp).toBeUndefined();
    expect(event.fingerprint).toMatch(/^TypeError:[0-9a-f]{16}$/);
    expect(event.fingerprint).toBe(
      computeFingerprint({ errorType: 'TypeError', message: valid().message, stack: valid().stack }),
    );
  });

  it('accepts the minimal event and falls back to the type as errorType', () => {
    const event = accepted({ eventId: 'evt_1', type: 'error', timestamp: RECEIVED_AT });
    expect(event).toEqual({
      eventId: 'evt_1',
      type: 'error',
      timestamp: RECEIVED_AT,
      appKey: APP_KEY,
      fingerprint: computeFingerprint({ errorType: 'error' }),
      grouping: GROUPING_VERSION,
    });
    expect(event.fingerprint).toMatch(/^error:[0-9a-f]{16}$/);
  });

  it('fingerprints a request event under "request" by method, path and status', () => {
    const request = (url: string) =>
      accepted({
        eventId: 'evt_r',
        type: 'request',
        timestamp: RECEIVED_AT,
        request: { method: 'GET', url, status: 503, durationMs: 120 },
      });
    const first = request('https://api.example.com/users/1?x=1');
    expect(first.fingerprint).toMatch(/^request:[0-9a-f]{16}$/);
    expect(request('https://api.example.com/users/2').fingerprint).toBe(first.fingerprint);
    expect(first.request).toEqual({
      method: 'GET',
      url: 'https://api.example.com/users/1?x=1',
      status: 503,
      durationMs: 120,
    });
  });

  it('accepts an appKey equal to the batch one', () => {
    expect(accepted(valid({ appKey: APP_KEY })).appKey).toBe(APP_KEY);
  });

  it('keeps a fingerprint sent by the client', () => {
    expect(accepted(valid({ fingerprint: 'CustomGroup:checkout-flow.v2' })).fingerprint).toBe(
      'CustomGroup:checkout-flow.v2',
    );
  });

  it('rejects a client fingerprint of the wrong shape', () => {
    expect(rejected(valid({ fingerprint: 'no colon here' })).message).toBe(
      'fingerprint: must look like <errorType>:<hash>',
    );
  });

  it('keeps optional context fields', () => {
    const extra = {
      platform: 'browser',
      sdkVersion: '1.4.2',
      sessionId: 'session_abc',
      anonymousId: 'anon_xyz',
      url: 'https://shop.example.com/cart',
      userAgent: 'Mozilla/5.0',
      release: '2024.06.01',
      environment: 'production',
      breadcrumbs: [
        { timestamp: RECEIVED_AT - 10, category: 'ui.click', message: 'clicked', level: 'info', data: { id: 'buy' } },
      ],
    };
    expect(accepted(valid(extra))).toMatchObject(extra);
  });
});

describe('judgeEvent: required fields and types', () => {
  it('rejects a missing eventId, naming the field', () => {
    const { eventId, ...rest } = valid();
    const verdict = rejected(rest);
    expect(verdict.message).toBe('eventId: is required');
    expect(verdict.eventId).toBeUndefined();
  });

  it('rejects a missing type, naming the field', () => {
    const { type, ...rest } = valid();
    const verdict = rejected(rest);
    expect(verdict.message.startsWith('type:')).toBe(true);
    expect(verdict.eventId).toBe('evt_abc-123_XYZ');
  });

  it('rejects an unknown type', () => {
    expect(rejected(valid({ type: 'warning' })).message).toBe('type: must be one of "error", "request"');
  });

  it('rejects a missing timestamp, naming the field', () => {
    const { timestamp, ...rest } = valid();
    expect(rejected(rest).message).toBe('timestamp: is required');
  });

  it('does not coerce "42" into a timestamp', () => {
    const verdict = rejected(valid({ timestamp: '42' }));
    expect(verdict.message.startsWith('timestamp:')).toBe(true);
    expect(verdict.eventId).toBe('evt_abc-123_XYZ');
  });

  it('rejects a non-integer timestamp but replaces an integer one out of range (negative, huge)', () => {
    expect(rejected(valid({ timestamp: 1.5 })).message.startsWith('timestamp:')).toBe(true);
    for (const timestamp of [-1, 1e20]) {
      const verdict = judgeEvent(valid({ timestamp }), context);
      expect(verdict.ok && verdict.event).toMatchObject({ timestamp: RECEIVED_AT, clientTimestamp: timestamp });
    }
  });

  it('keeps text with NUL bytes and lone surrogates in a storable form, keys included', () => {
    const verdict = judgeEvent(
      valid({ message: 'a\u0000b\ud800c', breadcrumbs: [{ data: { 'k\u0000': '\udc00' } }] }),
      context,
    );
    expect(verdict.ok && verdict.event.message).toBe('ab\ufffdc');
    expect(verdict.ok && verdict.event.breadcrumbs?.[0]?.data).toEqual({ k: '\ufffd' });
  });

  it('fingerprints hostile stacks and messages without backtracking (a hang guard, not a benchmark)', () => {
    const hostile = [
      '@'.repeat(32_760) + ':'.repeat(32_760),
      ' '.repeat(65_536),
      `    at ${'-a1'.repeat(21_845)}`,
      'abcdef'.repeat(10_000),
    ];
    for (let round = 0; round < 10; round++) {
      for (const text of hostile) {
        const verdict = judgeEvent(valid({ message: text, stack: text }), context);
        expect(verdict.ok).toBe(true);
      }
    }
  }, 5_000);

  // Before cf74838 validation.ts described every invalid_type issue as "is required" (zod 4 leaves
  // `issue.input` off issues). These pin the contract's wording.
  it('says "expected integer" for a mistyped timestamp, not "is required"', () => {
    expect(rejected(valid({ timestamp: '42' })).message).toBe('timestamp: expected integer');
    expect(rejected(valid({ timestamp: 1.5 })).message).toBe('timestamp: expected integer');
    expect(rejected(valid({ timestamp: null })).message).toBe('timestamp: expected integer');
  });

  it('names the expected type of other mistyped fields', () => {
    expect(rejected(valid({ platform: 42 })).message).toBe('platform: expected string');
    expect(rejected(valid({ breadcrumbs: 'none' })).message).toBe('breadcrumbs: expected array');
  });

  it('rejects eventIds of the wrong shape', () => {
    for (const eventId of ['abc', 'evt_', 'evt_has space', 'evt_dot.dot', `evt_${'a'.repeat(65)}`, 'EVT_abc', 42]) {
      expect(rejected(valid({ eventId })).message.startsWith('eventId:')).toBe(true);
    }
    expect(accepted(valid({ eventId: `evt_${'a'.repeat(64)}` })).eventId).toBe(`evt_${'a'.repeat(64)}`);
  });

  it('reports the claimed eventId of a rejected event, capped at 80 characters', () => {
    expect(rejected(valid({ eventId: 'x'.repeat(200) })).eventId).toBe('x'.repeat(80));
  });

  it('rejects an appKey that differs from the batch one', () => {
    const verdict = rejected(valid({ appKey: 'web_someoneelse000000' }));
    expect(verdict.message).toBe("appKey: differs from the batch's appKey");
    expect(verdict.eventId).toBe('evt_abc-123_XYZ');
  });

  it('rejects non-objects', () => {
    for (const raw of [null, 42, 'evt_1', [], true]) {
      expect(judgeEvent(raw, context).ok).toBe(false);
    }
  });

  it('rejects a bad sdkVersion, sessionId and anonymousId', () => {
    expect(rejected(valid({ sdkVersion: 'v1' })).message).toBe('sdkVersion: must be dotted numeric, like 1.4.2');
    expect(rejected(valid({ sessionId: 'abc' })).message.startsWith('sessionId:')).toBe(true);
    expect(rejected(valid({ anonymousId: 'session_abc' })).message.startsWith('anonymousId:')).toBe(true);
  });

  it('bounds platform at 32 and errorType at 64 characters', () => {
    expect(accepted(valid({ platform: 'p'.repeat(32) })).platform).toBe('p'.repeat(32));
    expect(rejected(valid({ platform: 'p'.repeat(33) })).message).toBe('platform: must contain at most 32 characters');
    expect(accepted(valid({ errorType: 'E'.repeat(64) })).errorType).toBe('E'.repeat(64));
    expect(rejected(valid({ errorType: 'E'.repeat(65) })).message).toBe(
      'errorType: must contain at most 64 characters',
    );
  });
});

describe('judgeEvent: truncation of long texts', () => {
  it('truncates a long ASCII message to 8 KiB', () => {
    const event = accepted(valid({ message: 'a'.repeat(10_000) }));
    expect(event.message).toBe('a'.repeat(8192));
  });

  it('truncates an emoji message without splitting a character', () => {
    const event = accepted(valid({ message: `a${'😀'.repeat(3000)}` }));
    const message = event.message!;
    expect(utf8Length(message)).toBeLessThanOrEqual(limits.messageBytes);
    expect(message).toBe(`a${'😀'.repeat(2047)}`); // 1 + 2047*4 = 8189 bytes; one more emoji would be 8193
    expect(message).not.toContain('\uFFFD');
  });

  it('truncates a CJK message without splitting a character', () => {
    const message = accepted(valid({ message: '漢'.repeat(3000) })).message!;
    expect(message).toBe('漢'.repeat(2730)); // 8190 bytes
    expect(utf8Length(message)).toBe(8190);
  });

  it('keeps a message of exactly 8 KiB', () => {
    expect(accepted(valid({ message: '😀'.repeat(2048) })).message).toBe('😀'.repeat(2048));
  });

  it('truncates a stack over 64 KiB', () => {
    const stack = accepted(valid({ stack: 'x'.repeat(70_000) })).stack!;
    expect(stack).toBe('x'.repeat(65_536));
    const multiByte = accepted(valid({ stack: 'é'.repeat(40_000) })).stack!;
    expect(multiByte).toBe('é'.repeat(32_768));
  });

  it('truncates a breadcrumb message to 2 KiB', () => {
    const event = accepted(valid({ breadcrumbs: [{ message: 'b'.repeat(5000) }] }));
    expect(event.breadcrumbs?.[0]?.message).toBe('b'.repeat(2048));
  });
});

describe('judgeEvent: breadcrumbs and nesting', () => {
  it('accepts 100 breadcrumbs and rejects 101', () => {
    const crumbs = (n: number) => Array.from({ length: n }, (_, i) => ({ message: `step ${i}` }));
    expect(accepted(valid({ breadcrumbs: crumbs(100) })).breadcrumbs).toHaveLength(100);
    expect(rejected(valid({ breadcrumbs: crumbs(101) })).message).toBe('breadcrumbs: must contain at most 100 items');
  });

  it('accepts nesting of exactly 16 levels and rejects 17', () => {
    // event (1) > breadcrumbs (2) > breadcrumbs[0] (3) > data (4) > ... 12 more objects = 16.
    const atLimit = valid({ breadcrumbs: [{ data: nestedObject(13) }] });
    const overLimit = valid({ breadcrumbs: [{ data: nestedObject(14) }] });
    expect(accepted(atLimit).breadcrumbs?.[0]?.data).toEqual(nestedObject(13));
    const verdict = rejected(overLimit);
    expect(verdict.message).toBe('nested deeper than 16 levels');
    expect(verdict.eventId).toBe('evt_abc-123_XYZ');
  });

  it('counts nesting in unknown fields too', () => {
    expect(accepted(valid({ extra: nestedObject(15) })).eventId).toBe('evt_abc-123_XYZ');
    expect(rejected(valid({ extra: nestedObject(16) })).message).toBe('nested deeper than 16 levels');
  });

  it('rejects a 100,000-deep value without a stack overflow', () => {
    let deep: unknown[] = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(rejected(valid({ breadcrumbs: [{ data: { deep } }] })).message).toBe('nested deeper than 16 levels');
  });
});

describe('judgeEvent: timestamp window', () => {
  const judgeAt = (timestamp: number) => accepted(valid({ timestamp }));

  it('keeps a timestamp inside the window untouched', () => {
    for (const timestamp of [
      RECEIVED_AT,
      RECEIVED_AT + 60_000,
      RECEIVED_AT - limits.maxEventAgeMs,
      RECEIVED_AT - 86_400_000,
    ]) {
      const event = judgeAt(timestamp);
      expect(event.timestamp).toBe(timestamp);
      expect(event.clientTimestamp).toBeUndefined();
      expect('clientTimestamp' in event).toBe(false);
    }
  });

  it('replaces a timestamp more than 1 minute in the future, keeping the original', () => {
    const event = judgeAt(RECEIVED_AT + 60_001);
    expect(event.timestamp).toBe(RECEIVED_AT);
    expect(event.clientTimestamp).toBe(RECEIVED_AT + 60_001);
  });

  it('replaces a timestamp more than 30 days old, keeping the original', () => {
    const old = RECEIVED_AT - 30 * 24 * 60 * 60 * 1000 - 1;
    const event = judgeAt(old);
    expect(event.timestamp).toBe(RECEIVED_AT);
    expect(event.clientTimestamp).toBe(old);
    expect(judgeAt(0)).toMatchObject({ timestamp: RECEIVED_AT, clientTimestamp: 0 });
  });
});

describe('judgeEvent: unknown fields and prototype safety', () => {
  it('strips unknown fields at every level', () => {
    const event = accepted(
      valid({
        bogus: 'x',
        receivedAt: 1,
        clientTimestamp: 5,
        request: { method: 'GET', url: '/a', secret: 'y' },
        breadcrumbs: [{ message: 'm', bogus: true }],
      }),
    );
    expect(event).not.toHaveProperty('bogus');
    expect(event).not.toHaveProperty('receivedAt');
    expect(event.clientTimestamp).toBeUndefined();
    expect(event.request).toEqual({ method: 'GET', url: '/a' });
    expect(event.breadcrumbs).toEqual([{ message: 'm' }]);
  });

  it('does not pollute Object.prototype through __proto__ keys', () => {
    const raw = JSON.parse(
      `{"eventId":"evt_p","type":"error","timestamp":${RECEIVED_AT},` +
        '"__proto__":{"polluted":"top"},' +
        '"request":{"method":"GET","url":"/a","__proto__":{"polluted":"request"}},' +
        '"breadcrumbs":[{"__proto__":{"polluted":"crumb"},"data":{"__proto__":{"polluted":"data"},"keep":1}}]}',
    );
    const event = accepted(raw);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(Object.getPrototypeOf(event)).toBe(Object.prototype);
    expect((event as unknown as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(event.request)).toBe(Object.prototype);
    const data = event.breadcrumbs?.[0]?.data;
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(data?.polluted).toBeUndefined();
    expect(data?.keep).toBe(1);
  });
});

describe('eventSchema', () => {
  it('does not coerce strings into numbers', () => {
    expect(eventSchema.safeParse({ eventId: 'evt_1', type: 'error', timestamp: '42' }).success).toBe(false);
    expect(eventSchema.safeParse({ eventId: 'evt_1', type: 'error', timestamp: 42 }).success).toBe(true);
  });
});

describe('displayMessage and errorTypeOf', () => {
  it('uses the message when there is one', () => {
    expect(displayMessage({ type: 'request', message: 'boom', request: { method: 'get', url: '/a' } })).toBe('boom');
  });

  it('names a failed request without its query', () => {
    expect(
      displayMessage({
        type: 'request',
        request: { method: 'post', url: 'https://api.example.com/orders?id=7#x', status: 502 },
      }),
    ).toBe('POST https://api.example.com/orders failed with 502');
    expect(displayMessage({ type: 'request', request: { method: 'GET', url: '/ping' } })).toBe('GET /ping failed');
  });

  it("is empty without message or request, and an error's request does not name it", () => {
    expect(displayMessage({ type: 'error' })).toBe('');
    expect(displayMessage({ type: 'error', request: { method: 'GET', url: '/checkout' } })).toBe('');
  });

  it('falls back to the event type for errorType', () => {
    expect(errorTypeOf({ type: 'request' })).toBe('request');
    expect(errorTypeOf({ type: 'error', errorType: 'TypeError' })).toBe('TypeError');
  });
});

describe('judgeEvent: structured frames and level', () => {
  it('keeps frames and level as sent', () => {
    const frames = [
      { function: 'renderCart', file: 'https://x.test/app.js', line: 1, column: 2, inApp: true },
      { file: 'node:internal/x' },
    ];
    expect(accepted(valid({ frames, level: 'warning' }))).toMatchObject({ frames, level: 'warning' });
  });

  it('bounds them: frame count, text lengths, known levels', () => {
    const frame = { function: 'f', file: 'a.js', line: 1 };
    expect(rejected(valid({ frames: Array.from({ length: limits.stackFrames + 1 }, () => frame) })).message).toMatch(
      /^frames/,
    );
    expect(rejected(valid({ frames: [{ function: 'f'.repeat(limits.frameFunctionChars + 1) }] })).message).toMatch(
      /^frames/,
    );
    expect(rejected(valid({ frames: [{ file: 'a'.repeat(limits.frameFileChars + 1) }] })).message).toMatch(/^frames/);
    expect(rejected(valid({ frames: [{ line: 1.5 }] })).message).toMatch(/^frames/);
    expect(rejected(valid({ level: 'loud' })).message).toMatch(/^level/);
  });
});

describe('fingerprintsOf: the current grouping version, and the previous one when it differs', () => {
  const base = { eventId: 'evt_1', timestamp: 1, appKey: 'web_0123456789abcdef', fingerprint: '' };

  it('gives no previous fingerprint when both versions agree (most events)', () => {
    expect(fingerprintsOf({ ...base, type: 'error', message: 'boom 42', stack: 'Error: boom' }, 'batch')).toEqual({
      fingerprint: computeFingerprint({ errorType: 'error', message: 'boom 42', stack: 'Error: boom' }),
      grouping: GROUPING_VERSION,
    });
  });

  it('keeps the version 1 fingerprint of a short prefixed id', () => {
    const request = { method: 'POST', url: '/v2/charges/ch_1002', status: 402 };
    const result = fingerprintsOf({ ...base, type: 'request', request }, 'batch');
    expect(result.previous).toBe(computeFingerprint({ errorType: 'request', request }, 1));
    expect(result.fingerprint).toBe(computeFingerprint({ errorType: 'request', request }, 2));
    expect(result.previous).not.toBe(result.fingerprint);
  });

  it("reads a Sentry error's request and a thread's stack only from version 2 on", () => {
    const request = { method: 'GET', url: '/checkout' };
    const error = { ...base, type: 'error' as const, message: 'boom', request };
    // Version 2 groups an error without its request, whichever endpoint it came through; version 1 read a batch
    // error's request, never a Sentry error's (its mapping had none).
    expect(fingerprintsOf(error, 'sentry')).toEqual({
      fingerprint: computeFingerprint({ errorType: 'error', message: 'boom' }),
      grouping: GROUPING_VERSION,
    });
    expect(fingerprintsOf(error, 'batch').previous).toBe(
      computeFingerprint({ errorType: 'error', message: 'boom', request }, 1),
    );
    const stack = 'Message: tick\n    at main (main.go:12)';
    const threaded = { ...base, type: 'error' as const, message: 'tick', stack, threads: [{ frames: [] }] };
    expect(fingerprintsOf(threaded, 'sentry').previous).toBe(
      computeFingerprint({ errorType: 'error', message: 'tick' }, 1),
    );
  });
});

describe('judgeEvent: client fingerprints and grouping versions', () => {
  const request = { method: 'POST', url: '/v2/charges/ch_1002', status: 402 };
  const raw = (fingerprint?: string) => ({
    eventId: 'evt_1',
    type: 'request',
    timestamp: 1_700_000_000_000,
    request,
    ...(fingerprint && { fingerprint }),
  });
  const judge = (fingerprint?: string) => {
    const verdict = judgeEvent(raw(fingerprint), { appKey: 'web_0123456789abcdef', receivedAt: 1_700_000_000_000 });
    if (!verdict.ok) throw new Error(verdict.message);
    return verdict.event;
  };
  const v1 = computeFingerprint({ errorType: 'request', request }, 1);
  const v2 = computeFingerprint({ errorType: 'request', request }, 2);

  it("groups the server's own fingerprint sent by a client (the browser SDK) under the current version", () => {
    expect(judge(v2)).toMatchObject({ fingerprint: v2, grouping: GROUPING_VERSION, previousFingerprint: v1 });
    expect(judge()).toMatchObject({ fingerprint: v2, grouping: GROUPING_VERSION, previousFingerprint: v1 });
  });

  it("records the previous version for an older SDK's fingerprint, and none for a client's own", () => {
    expect(judge(v1)).toMatchObject({ fingerprint: v1, grouping: 1 });
    expect(judge(v1)).not.toHaveProperty('previousFingerprint');
    const own = judge('Custom:checkout');
    expect(own.fingerprint).toBe('Custom:checkout');
    expect(own).not.toHaveProperty('grouping');
  });
});
