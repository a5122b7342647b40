import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  corsPreflight,
  createApp,
  makeEvent,
  makeEvents,
  sendBatch,
  sendRawBatch,
  signUp,
  startTestServer,
} from './harness';

const server = await startTestServer();
const { token } = await signUp(server);

async function freshApp() {
  return (await createApp(server, token)).appKey;
}

describe('ingestion, happy paths', () => {
  it('stores a batch and makes it visible at once to the dashboard', async () => {
    const appKey = await freshApp();
    const events = [
      makeEvent(),
      makeEvent(),
      makeEvent({
        type: 'request',
        errorType: undefined,
        message: undefined,
        stack: undefined,
        request: { method: 'GET', url: 'https://api.example/orders/17?x=1', status: 502, durationMs: 120 },
      }),
    ];
    const reply = await sendBatch(server, appKey, events);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ accepted: 3, duplicates: 0, rejected: [] });

    const overview = await server.call('GET', `/api/overview?appKey=${appKey}`, { token });
    expect(overview.body.totals).toEqual({
      events: 3,
      errors: 2,
      failedRequests: 1,
      affectedUsers: expect.any(Number),
      issues: 2,
    });
    const issues = await server.call('GET', `/api/issues?appKey=${appKey}`, { token });
    expect(issues.body.issues.map((issue: { eventCount: number }) => issue.eventCount).sort()).toEqual([1, 2]);
    const request = issues.body.issues.find((issue: { errorType: string }) => issue.errorType === 'request');
    expect(request.message).toBe('GET https://api.example/orders/17 failed with 502');
  });

  it('is idempotent by eventId: a retry is accepted, counted as duplicate and stored once', async () => {
    const appKey = await freshApp();
    const events = [makeEvent(), makeEvent()];
    expect((await sendBatch(server, appKey, events)).body).toEqual({ accepted: 2, duplicates: 0, rejected: [] });
    expect((await sendBatch(server, appKey, [...events, makeEvent()])).body).toEqual({
      accepted: 3,
      duplicates: 2,
      rejected: [],
    });
    const overview = await server.call('GET', `/api/overview?appKey=${appKey}`, { token });
    expect(overview.body.totals.events).toBe(3);
    const issues = await server.call('GET', `/api/issues?appKey=${appKey}`, { token });
    expect(issues.body.issues).toHaveLength(1);
    expect(issues.body.issues[0].eventCount).toBe(3);
  });

  it('counts the same eventId twice in one batch once', async () => {
    const appKey = await freshApp();
    const event = makeEvent();
    expect((await sendBatch(server, appKey, [event, event])).body).toEqual({
      accepted: 2,
      duplicates: 1,
      rejected: [],
    });
    expect((await server.call('GET', `/api/overview?appKey=${appKey}`, { token })).body.totals.events).toBe(1);
  });

  it('stores and counts the same eventId sent concurrently exactly once', async () => {
    const appKey = await freshApp();
    const events = makeEvents(20);
    const replies = await Promise.all(Array.from({ length: 5 }, () => sendBatch(server, appKey, events)));
    expect(replies.every((reply) => reply.status === 200 && reply.body.accepted === 20)).toBe(true);
    expect(replies.reduce((sum, reply) => sum + reply.body.duplicates, 0)).toBe(80);
    const overview = await server.call('GET', `/api/overview?appKey=${appKey}`, { token });
    expect(overview.body.totals.events).toBe(20);
    const issues = await server.call('GET', `/api/issues?appKey=${appKey}`, { token });
    expect(issues.body.issues[0].eventCount).toBe(20);
  });

  it("counts an issue's users once when concurrent batches bring the same new users (claimed or pending)", async () => {
    const appKey = await freshApp();
    const group = { fingerprint: 'js:claimed-users' };
    await sendBatch(server, appKey, [makeEvent({ ...group, anonymousId: 'anon_first' })]);
    // Eight batches at once, each with the same 40 users new to the issue: statements that overlap contend for the same
    // pairs, and whichever way each pair goes (inserted, or left pending for the fold), it counts once. Whether two
    // statements overlap here is up to timing; db's distinct-users.test.ts makes two overlap for certain.
    const users = Array.from({ length: 40 }, (_, i) => `anon_u${i}`);
    const replies = await Promise.all(
      Array.from({ length: 8 }, () =>
        sendBatch(
          server,
          appKey,
          users.map((anonymousId) => makeEvent({ ...group, anonymousId })),
        ),
      ),
    );
    expect(replies.every((reply) => reply.status === 200 && reply.body.accepted === 40)).toBe(true);
    const expected = { eventCount: 321, userCount: 41 };
    const detail = await server.call('GET', `/api/issues/${appKey}:js:claimed-users`, { token });
    expect(detail.body.issue).toMatchObject(expected);
    const listed = await server.call('GET', `/api/issues?appKey=${appKey}&sort=users`, { token });
    expect(listed.body.issues[0]).toMatchObject(expected);
    expect((await server.call('GET', `/api/overview?appKey=${appKey}`, { token })).body.totals.affectedUsers).toBe(41);
  });

  it('judges each event on its own: rejects the bad ones with index, eventId and reason, stores the rest', async () => {
    const appKey = await freshApp();
    const bad = makeEvent({ timestamp: 'yesterday' });
    const reply = await sendBatch(server, appKey, [makeEvent(), bad, makeEvent({ type: 'crash' }), 'not an object']);
    expect(reply.status).toBe(200);
    expect(reply.body.accepted).toBe(1);
    expect(reply.body.rejected).toEqual([
      { index: 1, eventId: bad.eventId, code: 'VALIDATION_FAILED', message: 'timestamp: expected integer' },
      { index: 2, eventId: expect.any(String), code: 'VALIDATION_FAILED', message: expect.stringMatching(/^type: /) },
      { index: 3, code: 'VALIDATION_FAILED', message: expect.any(String) },
    ]);
    expect((await server.call('GET', `/api/overview?appKey=${appKey}`, { token })).body.totals.events).toBe(1);
  });

  it('groups by a server-side fingerprint when none is sent: numbers and ids in messages do not split issues', async () => {
    const appKey = await freshApp();
    const events = [17, 4242, 99].map((id) =>
      makeEvent({
        message: `Order ${id} not found at https://shop.example/orders/${id}?ref=${id}`,
        errorType: 'NotFound',
        stack: undefined,
      }),
    );
    await sendBatch(server, appKey, events);
    const issues = await server.call('GET', `/api/issues?appKey=${appKey}`, { token });
    expect(issues.body.issues).toHaveLength(1);
    expect(issues.body.issues[0]).toMatchObject({
      eventCount: 3,
      errorType: 'NotFound',
      fingerprint: expect.stringMatching(/^NotFound:[0-9a-f]{16}$/),
    });
  });

  it('keeps a fingerprint sent by the SDK', async () => {
    const appKey = await freshApp();
    await sendBatch(server, appKey, [
      makeEvent({ fingerprint: 'TypeError:custom-group' }),
      makeEvent({ fingerprint: 'TypeError:custom-group', message: 'other' }),
    ]);
    const issues = await server.call('GET', `/api/issues?appKey=${appKey}`, { token });
    expect(issues.body.issues.map((issue: { id: string }) => issue.id)).toEqual([`${appKey}:TypeError:custom-group`]);
  });

  it('keeps issue counters exact: count, first and last seen, distinct users', async () => {
    const appKey = await freshApp();
    const base = Date.now() - 60_000;
    const group = { fingerprint: 'js:counters' };
    await sendBatch(server, appKey, [
      makeEvent({ ...group, timestamp: base + 10, anonymousId: 'anon_a' }),
      makeEvent({ ...group, timestamp: base + 30, anonymousId: 'anon_b' }),
    ]);
    await sendBatch(server, appKey, [
      makeEvent({ ...group, timestamp: base, anonymousId: 'anon_a' }),
      makeEvent({ ...group, timestamp: base + 20, anonymousId: undefined }),
    ]);
    const detail = await server.call('GET', `/api/issues/${appKey}:js:counters`, { token });
    expect(detail.body.issue).toMatchObject({ eventCount: 4, userCount: 2, firstSeenAt: base, lastSeenAt: base + 30 });
    const totals = (await server.call('GET', `/api/overview?appKey=${appKey}`, { token })).body.totals;
    expect(totals).toEqual({ events: 4, errors: 4, failedRequests: 0, affectedUsers: 2, issues: 1 });
  });

  it('replaces a timestamp too far in the future or past by the time of receipt, keeping the original', async () => {
    const appKey = await freshApp();
    const future = Date.now() + 10 * 60_000;
    const ancient = Date.now() - 31 * 24 * 60 * 60_000;
    const fine = Date.now() - 5 * 24 * 60 * 60_000;
    const group = { fingerprint: 'js:clock' };
    const before = Date.now();
    await sendBatch(server, appKey, [
      makeEvent({ ...group, timestamp: future }),
      makeEvent({ ...group, timestamp: ancient }),
      makeEvent({ ...group, timestamp: fine }),
    ]);
    const { events } = (await server.call('GET', `/api/issues/${appKey}:js:clock`, { token })).body;
    const byClient = new Map(
      events.map((event: { clientTimestamp?: number; timestamp: number }) => [
        event.clientTimestamp ?? event.timestamp,
        event,
      ]),
    );
    for (const original of [future, ancient]) {
      const event = byClient.get(original) as { timestamp: number; receivedAt: number };
      expect(event.timestamp).toBe(event.receivedAt);
      expect(event.timestamp).toBeGreaterThanOrEqual(before);
    }
    expect(byClient.get(fine)).not.toHaveProperty('clientTimestamp');
  });

  it('truncates an over-long message and stack instead of rejecting', async () => {
    const appKey = await freshApp();
    const reply = await sendBatch(server, appKey, [
      makeEvent({ fingerprint: 'js:long', message: 'é'.repeat(10_000), stack: 's'.repeat(70_000) }),
    ]);
    expect(reply.body.accepted).toBe(1);
    const [event] = (await server.call('GET', `/api/issues/${appKey}:js:long`, { token })).body.events;
    expect(Buffer.byteLength(event.message)).toBe(8192);
    expect(event.stack).toHaveLength(65_536);
  });

  it('takes text/plain bodies (sendBeacon) and gzip-encoded bodies', async () => {
    const appKey = await freshApp();
    const plain = await server.call('POST', '/api/events/batch', {
      rawBody: JSON.stringify({ appKey, events: [makeEvent()] }),
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
    });
    expect(plain.body).toEqual({ accepted: 1, duplicates: 0, rejected: [] });
    const gzipped = await sendRawBatch(
      server,
      gzipSync(JSON.stringify({ appKey, events: [makeEvent(), makeEvent()] })),
      'gzip',
    );
    expect(gzipped.body).toEqual({ accepted: 2, duplicates: 0, rejected: [] });
  });

  it('answers CORS preflights and allows any origin on ingestion only', async () => {
    const preflight = await corsPreflight(server, '/api/events/batch', 'content-type');
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    const appKey = await freshApp();
    const post = await server.call('POST', '/api/events/batch', {
      body: { appKey, events: [makeEvent()] },
      headers: { origin: 'https://shop.example' },
    });
    expect(post.headers.get('access-control-allow-origin')).toBe('*');
    expect(post.headers.get('access-control-expose-headers')).toBe('Retry-After,X-Request-Id');
    const dashboard = await server.call('GET', '/api/apps', { token, headers: { origin: 'https://evil.example' } });
    expect(dashboard.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('takes a batch of exactly 50 events and events carrying every documented field', async () => {
    const appKey = await freshApp();
    const full = makeEvent({
      appKey,
      fingerprint: 'TypeError:full',
      url: 'https://shop.example/cart',
      userAgent: 'Mozilla/5.0',
      release: 'shop@2.3.1',
      environment: 'production',
      breadcrumbs: [
        {
          timestamp: Date.now(),
          category: 'fetch',
          message: 'GET /api/cart',
          level: 'info',
          data: { status: 200, nested: { ok: true } },
        },
      ],
      tags: { plan: 'pro' },
      user: { id: 'u-1', email: 'ada@example.com', username: 'ada' },
      contexts: { order: { id: 'ord_1', total: 19.99 } },
      extra: { cart: [1, 2] },
    });
    const reply = await sendBatch(server, appKey, [full, ...makeEvents(49)]);
    expect(reply.body).toEqual({ accepted: 50, duplicates: 0, rejected: [] });
    const [stored] = (await server.call('GET', `/api/issues/${appKey}:TypeError:full`, { token })).body.events;
    const { receivedAt, ...asSent } = stored;
    // handled: unknown (null) for an event that sent no exception mechanism.
    expect(asSent).toEqual({ ...full, handled: null });
    expect(receivedAt).toEqual(expect.any(Number));
  });
});
