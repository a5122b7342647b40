// How the SDK turns what the page reports into events, checked against the server's own judgement of an event.
import { judgeEvent } from '@collector/domain';
import { describe, expect, it } from 'vitest';
import type { CollectorEvent } from './event';
import { type InitOptions, type ResolvedOptions, resolveOptions } from './options';
import { BrowserSdk, type EventSink, SDK_VERSION } from './sdk';

const INGEST = 'https://collector.example/api/events/batch';

function setup(options: Partial<InitOptions> = {}, random = () => 0) {
  const resolved = resolveOptions(
    { appKey: 'web_abc', endpoint: 'https://collector.example/', ...options },
    'https://shop.example/cart',
  );
  if (typeof resolved === 'string') throw new Error(resolved);
  const events: CollectorEvent[] = [];
  let unloads = 0;
  const sink: EventSink = {
    enqueue: (event) => {
      // As the transport does: what is queued is the JSON of the event at capture time.
      events.push(JSON.parse(JSON.stringify(event)) as CollectorEvent);
      return true;
    },
    flush: async () => true,
    flushOnUnload: () => {
      unloads++;
    },
    close: () => undefined,
  };
  const sdk = new BrowserSdk(
    resolved,
    sink,
    { sessionId: 'session_tab', anonymousId: 'anon_me' },
    { url: () => 'https://shop.example/cart?step=2', userAgent: () => 'TestAgent/1.0' },
    random,
  );
  return { sdk, events, unloads: () => unloads, options: resolved };
}

function thrown(message = "Cannot read properties of undefined (reading 'id')"): Error {
  const error = new TypeError(message);
  error.stack = `TypeError: ${message}\n    at renderCart (https://shop.example/assets/app.3f9a2c1b.js:10:20)\n    at HTMLButtonElement.onClick (https://shop.example/assets/app.3f9a2c1b.js:42:7)`;
  return error;
}

describe('events', () => {
  it('builds an event the server accepts as is, with the fingerprint the server would compute', () => {
    const { sdk, events } = setup({ release: '1.2.3', environment: 'production' });
    sdk.addBreadcrumb({ category: 'ui.click', message: 'button#checkout' });
    const eventId = sdk.captureException(thrown());
    expect(events).toHaveLength(1);
    const [event] = events as [CollectorEvent];
    expect(event).toMatchObject({
      eventId,
      type: 'error',
      platform: 'web',
      sdkVersion: SDK_VERSION,
      sessionId: 'session_tab',
      anonymousId: 'anon_me',
      errorType: 'TypeError',
      message: "Cannot read properties of undefined (reading 'id')",
      url: 'https://shop.example/cart?step=2',
      userAgent: 'TestAgent/1.0',
      release: '1.2.3',
      environment: 'production',
      breadcrumbs: [{ category: 'ui.click', message: 'button#checkout' }],
    });
    expect(event.stack).toContain('at renderCart');
    const receivedAt = Date.now();
    const verdict = judgeEvent(event, { appKey: 'web_abc', receivedAt });
    expect(verdict.ok).toBe(true);
    const { fingerprint, ...withoutFingerprint } = event;
    const recomputed = judgeEvent(withoutFingerprint, { appKey: 'web_abc', receivedAt });
    expect(recomputed.ok && recomputed.event.fingerprint).toBe(fingerprint);
  });

  it('agrees with the server on request events and messages too', () => {
    const { sdk, events } = setup();
    sdk.onRequest({
      kind: 'fetch',
      method: 'post',
      url: 'https://api.example/orders/12345/pay',
      status: 502,
      durationMs: 12.6,
    });
    sdk.captureMessage('checkout took 4200 ms');
    sdk.captureException('a thrown string');
    expect(events.map((event) => event.type)).toEqual(['request', 'error', 'error']);
    expect(events[0]?.request).toEqual({
      method: 'POST',
      url: 'https://api.example/orders/12345/pay',
      status: 502,
      durationMs: 13,
    });
    expect(events[1]).toMatchObject({ errorType: 'Message', message: 'checkout took 4200 ms' });
    for (const event of events) {
      const { fingerprint, ...rest } = event;
      const verdict = judgeEvent(rest, { appKey: 'web_abc', receivedAt: Date.now() });
      expect(verdict.ok && verdict.event.fingerprint).toBe(fingerprint);
    }
  });

  it('describes thrown values that are not errors', () => {
    const { sdk, events } = setup();
    sdk.captureException({ code: 42 });
    sdk.captureException(undefined);
    sdk.onUnhandledRejection(null);
    expect(events.map((event) => [event.errorType, event.message])).toEqual([
      ['Error', 'Non-Error value: {"code":42}'],
      ['Error', 'Non-Error value: undefined'],
      ['UnhandledRejection', 'Non-Error value: null'],
    ]);
  });

  it('reads errors whose getters throw without throwing itself', () => {
    const { sdk, events } = setup();
    const hostile = Object.create(Error.prototype, {
      message: {
        get() {
          throw new Error('no');
        },
      },
      name: { value: 'HostileError' },
    });
    expect(() => sdk.captureException(hostile)).not.toThrow();
    expect(events[0]?.errorType).toBe('HostileError');
  });

  it('keeps what it sends within the server limits', () => {
    const { sdk, events } = setup();
    const error = new RangeError('m'.repeat(100_000));
    error.stack = 's'.repeat(200_000);
    sdk.captureException(error);
    sdk.onRequest({
      kind: 'xhr',
      method: 'GET',
      url: `https://api.example/${'p'.repeat(5000)}`,
      status: 0,
      durationMs: 1,
    });
    for (const event of events) expect(judgeEvent(event, { appKey: 'web_abc', receivedAt: Date.now() }).ok).toBe(true);
    expect(events[0]?.message?.length).toBe(8192);
    expect(events[1]?.request?.url.length).toBe(2048);
  });
});

describe('scope: tags, user, contexts and extra', () => {
  it('sends what was set with every later event, and the server keeps it', () => {
    const { sdk, events } = setup();
    sdk.captureMessage('before');
    sdk.setTag('plan', 'pro');
    sdk.setUser({ id: 'u-1', email: 'ada@example.com', username: 'ada' });
    sdk.setContext('order', { id: 'ord_1', total: 19.99 });
    sdk.setExtra('step', 3);
    sdk.captureMessage('after');
    sdk.setUser(null);
    sdk.setContext('order', null);
    sdk.captureMessage('logged out');
    const [before, after, out] = events as [CollectorEvent, CollectorEvent, CollectorEvent];
    expect(before).not.toHaveProperty('tags');
    expect(after).toMatchObject({
      tags: { plan: 'pro' },
      user: { id: 'u-1', email: 'ada@example.com', username: 'ada' },
      contexts: { order: { id: 'ord_1', total: 19.99 } },
      extra: { step: 3 },
    });
    expect(out).not.toHaveProperty('user');
    expect(out).not.toHaveProperty('contexts');
    expect(out.tags).toEqual({ plan: 'pro' });
    const verdict = judgeEvent(after, { appKey: 'web_abc', receivedAt: after.timestamp });
    expect(verdict.ok && verdict.event).toMatchObject({ tags: { plan: 'pro' }, user: { email: 'ada@example.com' } });
  });
});

describe('capturing once', () => {
  it('sends an error object once, however often it is reported', () => {
    const { sdk, events } = setup();
    const error = thrown();
    expect(sdk.captureException(error)).toMatch(/^evt_/);
    expect(sdk.captureException(error)).toBeUndefined();
    sdk.onUncaughtError({ error, message: `Uncaught ${error.message}` });
    sdk.onUnhandledRejection(error);
    expect(events).toHaveLength(1);
  });

  it('does not capture the rejection of a fetch whose failure was already a request event', () => {
    const { sdk, events } = setup();
    const failure = new TypeError('Failed to fetch');
    sdk.onRequest({
      kind: 'fetch',
      method: 'GET',
      url: 'https://api.example/cart',
      status: 0,
      durationMs: 3,
      error: failure,
    });
    sdk.onUnhandledRejection(failure);
    expect(events.map((event) => event.type)).toEqual(['request']);
  });

  it('drops what is captured while an event is being built (beforeSend reporting an error)', () => {
    let sdkRef: BrowserSdk | undefined;
    const { sdk, events } = setup({
      beforeSend: (event) => {
        sdkRef?.captureException(new Error('from beforeSend'));
        return event;
      },
    });
    sdkRef = sdk;
    sdk.captureException(thrown());
    expect(events).toHaveLength(1);
  });

  it('ignores cross-origin "Script error." that carries nothing', () => {
    const { sdk, events } = setup();
    sdk.onUncaughtError({ message: 'Script error.', filename: '', lineno: 0, colno: 0 });
    expect(events).toHaveLength(0);
    sdk.onUncaughtError({
      error: 'plain string',
      message: 'Uncaught plain string',
      filename: 'https://shop.example/app.js',
      lineno: 3,
      colno: 9,
    });
    expect(events[0]).toMatchObject({ errorType: 'Error', message: 'plain string' });
    expect(events[0]?.stack).toContain('at https://shop.example/app.js:3:9');
  });
});

describe('options', () => {
  it('samples with sampleRate', () => {
    let next = 0;
    const draws = [0.1, 0.6, 0.3, 0.9];
    const { sdk, events } = setup({ sampleRate: 0.5 }, () => draws[next++ % draws.length] ?? 0);
    for (let i = 0; i < 4; i++) sdk.captureException(new Error(`e${i}`));
    expect(events.map((event) => event.message)).toEqual(['e0', 'e2']);
    const none = setup({ sampleRate: 0 }, () => 0);
    none.sdk.captureException(new Error('never'));
    expect(none.events).toHaveLength(0);
  });

  it('lets beforeSend change or drop events; one that throws drops the event', () => {
    const { sdk, events } = setup({
      beforeSend: (event) => {
        if (event.message === 'drop me') return null;
        if (event.message === 'explode') throw new Error('bug in beforeSend');
        return { ...event, message: event.message?.replace(/\d{16}/, '[card]') };
      },
    });
    sdk.captureException(new Error('card 4111111111111111 declined'));
    sdk.captureException(new Error('drop me'));
    sdk.captureException(new Error('explode'));
    expect(events.map((event) => event.message)).toEqual(['card [card] declined']);
  });

  it('captures network failures and 5xx by default, other statuses as breadcrumbs only', () => {
    const { sdk, events } = setup();
    for (const status of [200, 404, 500, 0])
      sdk.onRequest({ kind: 'fetch', method: 'GET', url: `https://api.example/s${status}`, status, durationMs: 1 });
    sdk.onRequest({
      kind: 'fetch',
      method: 'GET',
      url: 'https://api.example/aborted',
      status: 0,
      durationMs: 1,
      aborted: true,
    });
    expect(events.map((event) => event.request?.status)).toEqual([500, 0]);
    sdk.captureMessage('after');
    expect(events.at(-1)?.breadcrumbs?.map((crumb) => [crumb.category, crumb.level, crumb.message])).toEqual([
      ['fetch', 'info', 'GET https://api.example/s200 [200]'],
      ['fetch', 'warning', 'GET https://api.example/s404 [404]'],
      ['fetch', 'error', 'GET https://api.example/s500 [500]'],
      ['fetch', 'error', 'GET https://api.example/s0 (failed)'],
      ['fetch', 'warning', 'GET https://api.example/aborted (aborted)'],
    ]);
  });

  it('takes other failed statuses, or none, from captureFailedRequests', () => {
    const listed = setup({ captureFailedRequests: [404, [520, 530]] });
    for (const status of [404, 500, 525, 0])
      listed.sdk.onRequest({ kind: 'xhr', method: 'GET', url: 'https://api.example/x', status, durationMs: 1 });
    expect(listed.events.map((event) => event.request?.status)).toEqual([404, 525, 0]);
    const off = setup({ captureFailedRequests: false });
    off.sdk.onRequest({ kind: 'xhr', method: 'GET', url: 'https://api.example/x', status: 0, durationMs: 1 });
    expect(off.events).toHaveLength(0);
  });

  it('never reports its own requests to the collector', () => {
    const { sdk, events } = setup();
    sdk.onRequest({ kind: 'fetch', method: 'POST', url: INGEST, status: 0, durationMs: 1 });
    sdk.onRequest({ kind: 'xhr', method: 'POST', url: `${INGEST}?x=1`, status: 503, durationMs: 1 });
    sdk.captureMessage('after');
    expect(events).toHaveLength(1);
    expect(events[0]?.breadcrumbs).toBeUndefined();
  });

  it('keeps maxBreadcrumbs breadcrumbs', () => {
    const { sdk, events } = setup({ maxBreadcrumbs: 3 });
    for (let i = 0; i < 10; i++) sdk.addBreadcrumb({ message: `b${i}` });
    sdk.captureMessage('now');
    expect(events[0]?.breadcrumbs?.map((crumb) => crumb.message)).toEqual(['b7', 'b8', 'b9']);
  });

  it('refuses init without appKey or with an endpoint that is not a URL', () => {
    expect(resolveOptions({ appKey: '', endpoint: 'https://c.example' }, undefined)).toMatch(/appKey/);
    expect(resolveOptions({ appKey: 'web_a', endpoint: 'not a url' }, undefined)).toMatch(/endpoint/);
    expect(
      (resolveOptions({ appKey: 'web_a', endpoint: '/collector/' }, 'https://shop.example/a/b') as ResolvedOptions)
        .ingestUrl,
    ).toBe('https://shop.example/collector/api/events/batch');
  });

  it('groups failed loads of one resource together, and apart from other resources', () => {
    const { sdk, events } = setup();
    sdk.onResourceError('img', 'https://cdn.example/products/123.png');
    sdk.onResourceError('img', 'https://cdn.example/products/456.png?v=2');
    sdk.onResourceError('script', 'https://cdn.example/vendor.js');
    expect(events[0]?.fingerprint).toBe(events[1]?.fingerprint);
    expect(events[2]?.fingerprint).not.toBe(events[0]?.fingerprint);
    expect(events[0]).toMatchObject({
      type: 'error',
      errorType: 'ResourceError',
      message: 'Failed to load img https://cdn.example/products/123.png',
    });
  });

  it('stops capturing once closed, and hands the queue over when the page hides', async () => {
    const { sdk, events, unloads } = setup();
    sdk.onPageHidden();
    expect(unloads()).toBe(1);
    await sdk.close();
    sdk.captureException(new Error('late'));
    sdk.onPageHidden();
    expect(events).toHaveLength(0);
    expect(unloads()).toBe(1);
  });
});
