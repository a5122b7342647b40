import { describe, expect, it } from 'vitest';
import { createApp, makeEvent, makeEvents, sendBatch, signUp, startTestServer } from './harness';

const server = await startTestServer();

describe('overview', () => {
  it('totals all of the caller’s apps, or one, with distinct users counted once across apps', async () => {
    const { token } = await signUp(server);
    const shop = await createApp(server, token);
    const blog = await createApp(server, token);
    await sendBatch(server, shop.appKey, [
      makeEvent({ anonymousId: 'anon_1', fingerprint: 'js:a' }),
      makeEvent({ anonymousId: 'anon_2', fingerprint: 'js:b' }),
      makeEvent({
        type: 'request',
        anonymousId: 'anon_2',
        fingerprint: 'request:c',
        request: { method: 'POST', url: '/api/pay', status: 500 },
      }),
    ]);
    await sendBatch(server, blog.appKey, [
      makeEvent({ anonymousId: 'anon_1', fingerprint: 'js:a' }),
      makeEvent({ anonymousId: undefined, fingerprint: 'js:d' }),
    ]);

    const all = await server.call('GET', '/api/overview', { token });
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ totals: { events: 5, errors: 4, failedRequests: 1, affectedUsers: 2, issues: 5 } });
    const shopOnly = await server.call('GET', `/api/overview?appKey=${shop.appKey}`, { token });
    expect(shopOnly.body).toEqual({ totals: { events: 3, errors: 2, failedRequests: 1, affectedUsers: 2, issues: 3 } });
  });

  it('narrows to a window with from (inclusive) and to (exclusive)', async () => {
    const { token } = await signUp(server);
    const { appKey } = await createApp(server, token);
    const t = Date.now() - 10 * 60_000;
    await sendBatch(server, appKey, [
      makeEvent({ timestamp: t, anonymousId: 'anon_1', fingerprint: 'js:a' }),
      makeEvent({ timestamp: t + 1000, anonymousId: 'anon_2', fingerprint: 'js:b' }),
      makeEvent({ timestamp: t + 2000, anonymousId: 'anon_3', fingerprint: 'js:b' }),
    ]);
    const window = await server.call('GET', `/api/overview?appKey=${appKey}&from=${t}&to=${t + 2000}`, { token });
    expect(window.body.totals).toEqual({ events: 2, errors: 2, failedRequests: 0, affectedUsers: 2, issues: 2 });
    const from = await server.call('GET', `/api/overview?from=${t + 1000}`, { token });
    expect(from.body.totals).toEqual({ events: 2, errors: 2, failedRequests: 0, affectedUsers: 2, issues: 1 });
    const empty = await server.call('GET', `/api/overview?to=${t}`, { token });
    expect(empty.body.totals).toEqual({ events: 0, errors: 0, failedRequests: 0, affectedUsers: 0, issues: 0 });
  });

  it('gives zeros to a user with no apps', async () => {
    const { token } = await signUp(server);
    expect((await server.call('GET', '/api/overview', { token })).body.totals).toEqual({
      events: 0,
      errors: 0,
      failedRequests: 0,
      affectedUsers: 0,
      issues: 0,
    });
  });
});

describe('issues list', () => {
  it('lists newest lastSeenAt first and pages with an opaque cursor, without gaps or repeats', async () => {
    const { token } = await signUp(server);
    const { appKey } = await createApp(server, token);
    const base = Date.now() - 60 * 60_000;
    // 7 issues; two share a lastSeenAt so the tie-break is exercised.
    const events = Array.from({ length: 7 }, (_, i) =>
      makeEvent({ fingerprint: `js:issue${i}`, timestamp: base + Math.min(i, 5) * 1000 }),
    );
    await sendBatch(server, appKey, events);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `/api/issues?appKey=${appKey}&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await server.call('GET', query, { token });
      expect(page.status).toBe(200);
      expect(page.body.issues.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.issues.map((issue: { id: string }) => issue.id));
      cursor = page.body.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(7);
    const full = await server.call('GET', `/api/issues?appKey=${appKey}`, { token });
    expect(full.body.issues.map((issue: { id: string }) => issue.id)).toEqual(seen);
    expect(full.body.nextCursor).toBeNull();
    const lastSeen = full.body.issues.map((issue: { lastSeenAt: number }) => issue.lastSeenAt);
    expect([...lastSeen].sort((a, b) => b - a)).toEqual(lastSeen);
    expect(full.body.issues[0]).toEqual({
      id: `${appKey}:js:issue6`,
      appKey,
      fingerprint: 'js:issue6',
      message: expect.any(String),
      errorType: 'TypeError',
      eventCount: 1,
      userCount: 1,
      firstSeenAt: base + 5000,
      lastSeenAt: base + 5000,
      status: 'unresolved',
      statusChangedAt: expect.any(Number),
      regressedAt: null,
      culprit: 'renderCart (/assets/app.3f9a2c1b.js)',
      level: 'error',
      lastRelease: null,
      assignee: null,
      unhandled: false,
      // The client's own fingerprint (js:issue6): no grouping version made it.
      groupingVersion: null,
      // Its last 14 UTC days, oldest first, every day present: its one event on its day.
      series: expect.arrayContaining([{ start: expect.any(Number), events: 1 }]),
    });
    expect(full.body.issues[0].series).toHaveLength(14);
  });

  it('lists across all of the caller’s apps without appKey', async () => {
    const { token } = await signUp(server);
    const one = await createApp(server, token);
    const two = await createApp(server, token);
    await sendBatch(server, one.appKey, [makeEvent({ fingerprint: 'js:x' })]);
    await sendBatch(server, two.appKey, [makeEvent({ fingerprint: 'js:x' })]);
    const list = await server.call('GET', '/api/issues', { token });
    expect(list.body.issues.map((issue: { appKey: string }) => issue.appKey).sort()).toEqual(
      [one.appKey, two.appKey].sort(),
    );
  });
});

describe('issue detail', () => {
  it('returns the issue and its events newest first, each as sent plus receivedAt, by raw or %3A-encoded id', async () => {
    const { token } = await signUp(server);
    const { appKey } = await createApp(server, token);
    const t = Date.now() - 60_000;
    const events = [0, 2, 1].map((i) => makeEvent({ fingerprint: 'TypeError:detail', timestamp: t + i }));
    await sendBatch(server, appKey, events);
    const id = `${appKey}:TypeError:detail`;
    const raw = await server.call('GET', `/api/issues/${id}`, { token });
    expect(raw.status).toBe(200);
    expect(raw.body.issue).toMatchObject({ id, eventCount: 3 });
    expect(raw.body.events.map((event: { timestamp: number }) => event.timestamp)).toEqual([t + 2, t + 1, t]);
    const { receivedAt, ...asSent } = raw.body.events[0];
    // handled: unknown (null) for an event that sent no exception mechanism.
    expect(asSent).toEqual({ ...events[1], appKey, handled: null });
    expect(receivedAt).toBeGreaterThanOrEqual(t);
    const encoded = await server.call('GET', `/api/issues/${encodeURIComponent(id)}`, { token });
    expect(encoded.body).toEqual(raw.body);
    expect(encodeURIComponent(id)).toContain('%3A');
  });

  it('returns at most 50 events by default and honours limit up to 100', async () => {
    const { token } = await signUp(server);
    const { appKey } = await createApp(server, token);
    for (let batch = 0; batch < 3; batch++) await sendBatch(server, appKey, makeEvents(50, { fingerprint: 'js:many' }));
    const id = `${appKey}:js:many`;
    expect((await server.call('GET', `/api/issues/${id}`, { token })).body.events).toHaveLength(50);
    expect((await server.call('GET', `/api/issues/${id}?limit=100`, { token })).body.events).toHaveLength(100);
    expect((await server.call('GET', `/api/issues/${id}?limit=2`, { token })).body.events).toHaveLength(2);
    expect((await server.call('GET', `/api/issues/${id}`, { token })).body.issue.eventCount).toBe(150);
  });
});
