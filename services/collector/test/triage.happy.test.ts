// Triage through HTTP: statuses, regressions, the issue list's filters, sorts and paging, and an issue's series,
// breakdown and pages of events.
import { describe, expect, it } from 'vitest';
import { createApp, makeEvent, sendBatch, signUp, startTestServer, type TestServer } from './harness';

const server: TestServer = await startTestServer();
const DAY = 86_400_000;

interface ListedIssue {
  id: string;
  status: string;
  eventCount: number;
  userCount: number;
  firstSeenAt: number;
  lastSeenAt: number;
  statusChangedAt: number | null;
  regressedAt: number | null;
  culprit: string | null;
}

async function list(token: string, query: string) {
  const reply = await server.call('GET', `/api/issues?${query}`, { token });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body as { issues: ListedIssue[]; nextCursor: string | null; total: number };
}

async function ids(token: string, query: string) {
  return (await list(token, query)).issues.map((issue) => issue.id.slice(issue.id.indexOf(':') + 1));
}

async function patch(token: string, id: string, status: string) {
  return server.call('PATCH', `/api/issues/${encodeURIComponent(id)}`, { token, body: { status } });
}

async function getIssue(token: string, id: string, query = '') {
  const reply = await server.call('GET', `/api/issues/${encodeURIComponent(id)}${query}`, { token });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
}

describe('status', () => {
  it('starts unresolved, changes by PATCH, and moves statusChangedAt only when the status changes', async () => {
    const { token } = await signUp(server);
    const { appKey } = await createApp(server, token);
    const before = Date.now();
    await sendBatch(server, appKey, [makeEvent({ fingerprint: 'js:one', level: 'warning', release: '2.0.0' })]);
    const id = `${appKey}:js:one`;
    const fresh = (await getIssue(token, id)).issue;
    expect(fresh).toMatchObject({
      status: 'unresolved',
      regressedAt: null,
      level: 'warning',
      lastRelease: '2.0.0',
      culprit: 'renderCart (/assets/app.3f9a2c1b.js)',
    });
    expect(fresh.statusChangedAt).toBeGreaterThanOrEqual(before);

    const resolved = await patch(token, id, 'resolved');
    expect(resolved.status).toBe(200);
    expect(resolved.body.issue).toMatchObject({ id, status: 'resolved', eventCount: 1 });
    expect(resolved.body.issue.statusChangedAt).toBeGreaterThanOrEqual(fresh.statusChangedAt);
    expect(Object.keys(resolved.body)).toEqual(['issue']);
    const again = await patch(token, id, 'resolved');
    expect(again.body.issue.statusChangedAt).toBe(resolved.body.issue.statusChangedAt);

    expect((await getIssue(token, id)).issue.status).toBe('resolved');
    expect((await patch(token, id, 'ignored')).body.issue.status).toBe('ignored');
    expect((await patch(token, id, 'unresolved')).body.issue).toMatchObject({
      status: 'unresolved',
      regressedAt: null,
    });
  });

  it('takes a raw or %3A-encoded id', async () => {
    const { token } = await signUp(server);
    const { appKey } = await createApp(server, token);
    await sendBatch(server, appKey, [makeEvent({ fingerprint: 'js:raw' })]);
    const raw = await server.call('PATCH', `/api/issues/${appKey}:js:raw`, { token, body: { status: 'ignored' } });
    expect(raw.status).toBe(200);
    expect(raw.body.issue.status).toBe('ignored');
  });

  it('changes many at once, counting only the caller’s issues and each once', async () => {
    const { token } = await signUp(server);
    const { appKey } = await createApp(server, token);
    await sendBatch(
      server,
      appKey,
      ['a', 'b', 'c', 'd'].map((name) => makeEvent({ fingerprint: `js:${name}` })),
    );
    const stranger = await signUp(server);
    const foreignApp = await createApp(server, stranger.token);
    await sendBatch(server, foreignApp.appKey, [makeEvent({ fingerprint: 'js:a' })]);

    const reply = await server.call('PATCH', '/api/issues', {
      token,
      body: {
        ids: [
          `${appKey}:js:a`,
          `${appKey}:js:b`,
          `${appKey}:js:b`,
          `${appKey}:js:c`,
          `${foreignApp.appKey}:js:a`,
          `${appKey}:js:none`,
          'no-colon',
        ],
        status: 'resolved',
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ updated: 3 });
    expect(await ids(token, `appKey=${appKey}&status=resolved&sort=firstSeen`)).toHaveLength(3);
    expect(await ids(token, `appKey=${appKey}&status=unresolved`)).toEqual(['js:d']);
    expect((await list(stranger.token, `appKey=${foreignApp.appKey}`)).issues[0]?.status).toBe('unresolved');
  });
});

describe('regression', () => {
  it('reopens a resolved issue at the receipt of its next event; an ignored one stays ignored and keeps counting', async () => {
    const { token } = await signUp(server);
    const { appKey } = await createApp(server, token);
    await sendBatch(server, appKey, [makeEvent({ fingerprint: 'js:back' }), makeEvent({ fingerprint: 'js:noisy' })]);
    const back = `${appKey}:js:back`;
    const noisy = `${appKey}:js:noisy`;
    await patch(token, back, 'resolved');
    await patch(token, noisy, 'ignored');

    await sendBatch(server, appKey, [
      makeEvent({ fingerprint: 'js:back' }),
      makeEvent({ fingerprint: 'js:noisy' }),
      makeEvent({ fingerprint: 'js:noisy' }),
    ]);
    const reopened = await getIssue(token, back);
    expect(reopened.issue).toMatchObject({ status: 'unresolved', eventCount: 2 });
    expect(reopened.issue.regressedAt).toBe(reopened.events[0].receivedAt);
    expect(reopened.issue.statusChangedAt).toBe(reopened.issue.regressedAt);
    const ignored = (await getIssue(token, noisy)).issue;
    expect(ignored).toMatchObject({ status: 'ignored', eventCount: 3, regressedAt: null });

    // A second event does not regress it again.
    await sendBatch(server, appKey, [makeEvent({ fingerprint: 'js:back' })]);
    expect((await getIssue(token, back)).issue).toMatchObject({
      status: 'unresolved',
      regressedAt: reopened.issue.regressedAt,
      eventCount: 3,
    });
  });

  it('reopens once when concurrent batches arrive for a resolved issue, and counts every event', async () => {
    const { token } = await signUp(server);
    const { appKey } = await createApp(server, token);
    const id = `${appKey}:js:hot`;
    await sendBatch(server, appKey, [makeEvent({ fingerprint: 'js:hot' })]);
    await patch(token, id, 'resolved');
    const before = Date.now();
    const replies = await Promise.all(
      Array.from({ length: 8 }, () =>
        sendBatch(server, appKey, [makeEvent({ fingerprint: 'js:hot' }), makeEvent({ fingerprint: 'js:hot' })]),
      ),
    );
    expect(replies.every((reply) => reply.body.accepted === 2)).toBe(true);
    const { issue, events } = await getIssue(token, id, '?limit=100');
    expect(issue).toMatchObject({ status: 'unresolved', eventCount: 17 });
    // The regression is at the receipt of one of the new batches: the one whose statement found the issue resolved.
    const receipts = events
      .map((event: { receivedAt: number }) => event.receivedAt)
      .filter((at: number) => at >= before);
    expect(receipts).toHaveLength(16);
    expect(receipts).toContain(issue.regressedAt);
    expect(issue.statusChangedAt).toBe(issue.regressedAt);
    expect(issue.series.at(-1).events).toBe(17);
  });

  it('loses no event when the issue is resolved while events arrive', async () => {
    const { token } = await signUp(server);
    const { appKey } = await createApp(server, token);
    const id = `${appKey}:js:busy`;
    await sendBatch(server, appKey, [makeEvent({ fingerprint: 'js:busy' })]);
    const sends = Array.from({ length: 12 }, () =>
      sendBatch(server, appKey, [makeEvent({ fingerprint: 'js:busy' }), makeEvent({ fingerprint: 'js:busy' })]),
    );
    const resolves = [
      patch(token, id, 'resolved'),
      server.call('PATCH', '/api/issues', { token, body: { ids: [id], status: 'resolved' } }),
    ];
    await Promise.all([...sends, ...resolves]);
    const { issue } = await getIssue(token, id);
    expect(issue.eventCount).toBe(25);
    expect(issue.series.reduce((sum: number, day: { events: number }) => sum + day.events, 0)).toBe(25);
    expect(['resolved', 'unresolved']).toContain(issue.status);
    // Whichever came last, the next event finds it in a state it can act on.
    await patch(token, id, 'resolved');
    await sendBatch(server, appKey, [makeEvent({ fingerprint: 'js:busy' })]);
    expect((await getIssue(token, id)).issue).toMatchObject({ status: 'unresolved', eventCount: 26 });
  });
});

describe('issue list: filters, search, sorts', async () => {
  const { token } = await signUp(server);
  const { appKey } = await createApp(server, token);
  const other = await createApp(server, token);
  const t = Date.now() - 60 * 60_000;
  const items = "Cannot read properties of undefined (reading 'items')";
  const stackAt = (fn: string) => `TypeError: ${items}\n    at ${fn} (https://shop.example/assets/app.js:1:1)`;
  await sendBatch(server, appKey, [
    // a: 5 events, 3 users, release 1.0.0 in production, tier gold then silver, region eu
    ...Array.from({ length: 5 }, (_, i) =>
      makeEvent({
        fingerprint: 'js:a',
        message: items,
        stack: stackAt('renderCart'),
        timestamp: t + 1000 + i,
        anonymousId: `anon_a${i % 3}`,
        release: '1.0.0',
        environment: 'production',
        tags: { tier: i < 3 ? 'gold' : 'silver', region: 'eu' },
      }),
    ),
    // b: 3 events, 3 users, the same message elsewhere, release 1.1.0 in staging, tier gold
    ...Array.from({ length: 3 }, (_, i) =>
      makeEvent({
        fingerprint: 'js:b',
        message: items,
        stack: stackAt('submitCheckout'),
        timestamp: t + 500 + i,
        anonymousId: `anon_b${i}`,
        release: '1.1.0',
        environment: 'staging',
        tags: { tier: 'gold' },
      }),
    ),
    // c: a failed request, 2 events, 1 user, release 1.1.0 in production
    ...Array.from({ length: 2 }, (_, i) =>
      makeEvent({
        fingerprint: 'request:c',
        type: 'request',
        errorType: undefined,
        message: undefined,
        stack: undefined,
        request: { method: 'GET', url: 'https://api.shop.example/api/orders/17', status: 500 },
        timestamp: t + 3000 + i,
        anonymousId: 'anon_c',
        release: '1.1.0',
        environment: 'production',
      }),
    ),
    // d: 1 event, no user, no release
    makeEvent({
      fingerprint: 'js:d',
      errorType: 'ReferenceError',
      message: 'cartStore is not defined',
      stack: undefined,
      timestamp: t,
      anonymousId: undefined,
    }),
  ]);
  await sendBatch(server, other.appKey, [makeEvent({ fingerprint: 'js:elsewhere', message: items, timestamp: t })]);
  await patch(token, `${appKey}:js:b`, 'resolved');
  await patch(token, `${appKey}:js:d`, 'ignored');
  const scope = `appKey=${appKey}`;

  it('filters by status, one or several; default all', async () => {
    expect(await ids(token, `${scope}&status=unresolved`)).toEqual(['request:c', 'js:a']);
    expect(await ids(token, `${scope}&status=resolved,ignored`)).toEqual(['js:b', 'js:d']);
    expect(await ids(token, `${scope}&status=ignored`)).toEqual(['js:d']);
    expect(await ids(token, scope)).toEqual(['request:c', 'js:a', 'js:b', 'js:d']);
  });

  it('searches message, errorType and culprit, case-insensitively', async () => {
    expect(await ids(token, `${scope}&q=ITEMS`)).toEqual(['js:a', 'js:b']);
    expect(await ids(token, `${scope}&q=referenceerror`)).toEqual(['js:d']);
    expect(await ids(token, `${scope}&q=submitcheckout`)).toEqual(['js:b']);
    expect(await ids(token, `${scope}&q=${encodeURIComponent('GET /api/orders/<id>')}`)).toEqual(['request:c']);
    expect(await ids(token, `${scope}&q=${encodeURIComponent("'items'")}`)).toEqual(['js:a', 'js:b']);
    expect(await ids(token, `${scope}&q=%25`)).toEqual([]);
    expect(await ids(token, `${scope}&q=nothing%20like%20it`)).toEqual([]);
  });

  it('filters by type, release and environment, and combines filters', async () => {
    expect(await ids(token, `${scope}&type=request`)).toEqual(['request:c']);
    expect(await ids(token, `${scope}&type=error`)).toEqual(['js:a', 'js:b', 'js:d']);
    expect(await ids(token, `${scope}&release=1.1.0`)).toEqual(['request:c', 'js:b']);
    expect(await ids(token, `${scope}&environment=production`)).toEqual(['request:c', 'js:a']);
    expect(await ids(token, `${scope}&release=1.1.0&environment=production`)).toEqual(['request:c']);
    expect(await ids(token, `${scope}&release=1.1.0&status=unresolved&type=error`)).toEqual([]);
    expect(await ids(token, `${scope}&release=9.9.9`)).toEqual([]);
  });

  it('suggests the releases, environments and tags its issues were seen with, most issues first, matched exactly', async () => {
    const facets = await server.call('GET', `/api/issues/facets?${scope}`, { token });
    expect(facets.status).toBe(200);
    // tier: gold on a and b, silver on a (3 issue and value pairs); region: eu on a (1).
    expect(facets.body).toEqual({
      releases: ['1.1.0', '1.0.0'],
      environments: ['production', 'staging'],
      tags: [
        { key: 'tier', values: ['gold', 'silver'] },
        { key: 'region', values: ['eu'] },
      ],
    });
    // Each tag suggested is one the search takes, and finds the issues seen with it.
    expect(await ids(token, `${scope}&q=tier:silver`)).toEqual(['js:a']);
    // Exact, as the suggestions give them: the facets' key is the value as sent (see the README).
    expect(await ids(token, `${scope}&environment=PRODUCTION`)).toEqual([]);
    const stranger = await signUp(server);
    expect((await server.call('GET', `/api/issues/facets?${scope}`, { token: stranger.token })).status).toBe(404);
    expect((await server.call('GET', '/api/issues/facets', { token: stranger.token })).body).toEqual({
      releases: [],
      environments: [],
      tags: [],
    });
    expect((await server.call('GET', '/api/issues/facets')).status).toBe(401);
  });

  it('bounds the tag suggestions: 50 keys, the commonest first, with 20 values each', async () => {
    const wide = await createApp(server, token);
    // 25 issues with a value of `common` each; two of them with 30 keys of their own: 61 keys in all.
    const sent = await sendBatch(
      server,
      wide.appKey,
      Array.from({ length: 25 }, (_, i) =>
        makeEvent({
          fingerprint: `js:v${i}`,
          tags: {
            common: `v${String(i).padStart(2, '0')}`,
            ...(i < 2 ? Object.fromEntries(Array.from({ length: 30 }, (_, k) => [`k${i}_${k}`, 'x'])) : {}),
          },
        }),
      ),
    );
    expect(sent.body.accepted).toBe(25);
    const { tags } = (await server.call('GET', `/api/issues/facets?appKey=${wide.appKey}`, { token })).body;
    expect(tags).toHaveLength(50);
    expect(tags[0]).toEqual({
      key: 'common',
      values: Array.from({ length: 20 }, (_, i) => `v${String(i).padStart(2, '0')}`),
    });
    expect(tags[1]).toEqual({ key: 'k0_0', values: ['x'] });
  });

  it('sorts by lastSeen, firstSeen, events and users, all descending', async () => {
    expect(await ids(token, `${scope}&sort=lastSeen`)).toEqual(['request:c', 'js:a', 'js:b', 'js:d']);
    expect(await ids(token, `${scope}&sort=firstSeen`)).toEqual(['request:c', 'js:a', 'js:b', 'js:d']);
    expect(await ids(token, `${scope}&sort=events`)).toEqual(['js:a', 'js:b', 'request:c', 'js:d']);
    const byUsers = await list(token, `${scope}&sort=users`);
    expect(byUsers.issues.map((issue) => issue.userCount)).toEqual([3, 3, 1, 0]);
  });

  it('says how many match, on every page, and lists across apps without appKey', async () => {
    const first = await list(token, `${scope}&limit=1&q=items`);
    expect(first.total).toBe(2);
    const second = await list(token, `${scope}&limit=1&q=items&cursor=${first.nextCursor}`);
    expect(second.total).toBe(2);
    expect(second.nextCursor).toBeNull();
    expect((await list(token, 'q=items')).total).toBe(3);
    expect((await list(token, `${scope}&q=zzz`)).total).toBe(0);
  });
});

describe('paging while events arrive', () => {
  it.each(['lastSeen', 'events', 'users', 'firstSeen'])(
    'sort=%s: no repeats, nothing untouched skipped, keys never rise',
    async (sort) => {
      const { token } = await signUp(server);
      const { appKey } = await createApp(server, token);
      const t = Date.now() - 60 * 60_000;
      // 9 issues with distinct keys: issue i has i + 1 events and users, first seen at t + i s, last seen at t + 10 min
      // + i s.
      await sendBatch(
        server,
        appKey,
        Array.from({ length: 9 }, (_, i) => [
          makeEvent({ fingerprint: `js:p${i}`, timestamp: t + i * 1000, anonymousId: `anon_p${i}_0` }),
          ...Array.from({ length: i }, (_, k) =>
            makeEvent({
              fingerprint: `js:p${i}`,
              timestamp: t + 600_000 + i * 1000,
              anonymousId: `anon_p${i}_${k + 1}`,
            }),
          ),
        ]).flat(),
      );
      const key = (issue: ListedIssue) =>
        ({
          lastSeen: issue.lastSeenAt,
          firstSeen: issue.firstSeenAt,
          events: issue.eventCount,
          users: issue.userCount,
        })[sort] as number;
      const seen: ListedIssue[] = [];
      const touched = new Set<string>();
      let cursor: string | null = null;
      let page = 0;
      do {
        const body: Awaited<ReturnType<typeof list>> = await list(
          token,
          `appKey=${appKey}&sort=${sort}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        );
        expect(body.total).toBe(9);
        seen.push(...body.issues);
        cursor = body.nextCursor;
        // Between pages, events arrive for an issue already listed and for one not yet listed (both gain events and
        // users).
        const listed = seen[0]?.id.split(':').slice(1).join(':');
        const unlisted = `js:p${(page * 5) % 9}`;
        for (const fingerprint of [listed, unlisted]) {
          if (!fingerprint) continue;
          touched.add(fingerprint);
          await sendBatch(server, appKey, [
            makeEvent({ fingerprint, anonymousId: `anon_new${page}_${fingerprint}`, timestamp: Date.now() - 1000 }),
          ]);
        }
        page += 1;
      } while (cursor && page < 20);
      const names = seen.map((issue) => issue.id.slice(appKey.length + 1));
      expect(new Set(names).size).toBe(names.length);
      for (let i = 0; i < 9; i++) if (!touched.has(`js:p${i}`)) expect(names).toContain(`js:p${i}`);
      const keys = seen.map(key);
      expect([...keys].sort((a, b) => b - a)).toEqual(keys);
    },
  );
});

describe('issue detail', () => {
  it('has a 30-day series, every day present, oldest first, from the daily counts', async () => {
    const { token } = await signUp(server);
    const { appKey } = await createApp(server, token);
    const now = Date.now();
    const today = Math.floor(now / DAY) * DAY;
    await sendBatch(server, appKey, [
      makeEvent({ fingerprint: 'js:s', timestamp: now - 1000 }),
      makeEvent({ fingerprint: 'js:s', timestamp: today - 10 * DAY + 5 }),
      makeEvent({ fingerprint: 'js:s', timestamp: today - 10 * DAY + 6 }),
      makeEvent({ fingerprint: 'js:s', timestamp: today - 29 * DAY + 3_600_000 }),
      // Older than 30 days: stored at its receipt, so today.
      makeEvent({ fingerprint: 'js:s', timestamp: now - 40 * DAY }),
    ]);
    const { issue } = await getIssue(token, `${appKey}:js:s`);
    expect(issue.series).toHaveLength(30);
    expect(issue.series[0].start).toBe(today - 29 * DAY);
    expect(issue.series.at(-1).start).toBe(today);
    issue.series.forEach((day: { start: number }, i: number) => {
      expect(day.start).toBe(today - (29 - i) * DAY);
    });
    const counts = Object.fromEntries(
      issue.series
        .filter((day: { events: number }) => day.events > 0)
        .map((day: { start: number; events: number }) => [(today - day.start) / DAY, day.events]),
    );
    expect(counts).toEqual({ 0: 2, 10: 2, 29: 1 });
  });

  it('pages its events newest first with cursor and nextCursor', async () => {
    const { token } = await signUp(server);
    const { appKey } = await createApp(server, token);
    const t = Date.now() - 60_000;
    // Two share a timestamp: the eventId breaks the tie.
    await sendBatch(
      server,
      appKey,
      Array.from({ length: 7 }, (_, i) =>
        makeEvent({ fingerprint: 'js:e', eventId: `evt_page${i}`, timestamp: t + Math.min(i, 5) * 10 }),
      ),
    );
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const body: { events: Array<{ eventId: string }>; nextCursor: string | null } = await getIssue(
        token,
        `${appKey}:js:e`,
        `?limit=3${cursor ? `&cursor=${cursor}` : ''}`,
      );
      seen.push(...body.events.map((event) => event.eventId));
      cursor = body.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(['evt_page6', 'evt_page5', 'evt_page4', 'evt_page3', 'evt_page2', 'evt_page1', 'evt_page0']);
  });

  it('pages events spread over days with gaps (read day by day, newest first) as one read of them all would', async () => {
    const { token } = await signUp(server);
    const { appKey } = await createApp(server, token);
    const now = Date.now();
    // Days 0, 3, 9 (three at one timestamp) and 25 back: the walk over the days must skip the empty ones, stop at the
    // issue's first event, and resume from a cursor inside any of them.
    const timestamps = [
      now - 1000,
      now - 2000,
      now - 3 * DAY,
      now - 9 * DAY,
      now - 9 * DAY,
      now - 9 * DAY,
      now - 9 * DAY - 1,
      now - 25 * DAY,
    ];
    const events = timestamps.map((timestamp, i) =>
      makeEvent({ fingerprint: 'js:d', eventId: `evt_days${i}`, timestamp, release: `1.0.${i % 2}` }),
    );
    await sendBatch(server, appKey, events);
    const newestFirst = [...events]
      .sort((a, b) => Number(b.timestamp) - Number(a.timestamp) || String(b.eventId).localeCompare(String(a.eventId)))
      .map((event) => event.eventId);
    for (const limit of [1, 2, 3, 100]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const body: { events: Array<{ eventId: string }>; nextCursor: string | null } = await getIssue(
          token,
          `${appKey}:js:d`,
          `?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
        );
        expect(body.events.length).toBeLessThanOrEqual(limit);
        seen.push(...body.events.map((event) => event.eventId));
        cursor = body.nextCursor;
      } while (cursor);
      expect(seen, `limit ${limit}`).toEqual(newestFirst);
    }
    // The breakdown reads back to the first event too.
    const { breakdown } = await getIssue(token, `${appKey}:js:d`);
    expect(breakdown.releases).toEqual([
      { value: '1.0.0', events: 4 },
      { value: '1.0.1', events: 4 },
    ]);
  });

  it('breaks its newest events down by browser, OS, release and environment', async () => {
    const { token } = await signUp(server);
    const { appKey } = await createApp(server, token);
    const chrome =
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
    const safari =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';
    await sendBatch(server, appKey, [
      makeEvent({ fingerprint: 'js:b', userAgent: chrome, release: '1.0.0', environment: 'production' }),
      makeEvent({ fingerprint: 'js:b', userAgent: chrome, release: '1.0.1', environment: 'production' }),
      makeEvent({ fingerprint: 'js:b', userAgent: safari, release: '1.0.1', environment: 'production' }),
      makeEvent({ fingerprint: 'js:b', release: '1.0.1' }),
    ]);
    const { breakdown } = await getIssue(token, `${appKey}:js:b`);
    expect(breakdown).toEqual({
      events: 4,
      browsers: [
        { value: 'Chrome 131', events: 2 },
        { value: 'Safari 18', events: 1 },
        { value: null, events: 1 },
      ],
      os: [
        { value: 'Windows 10', events: 2 },
        { value: 'iOS 18.1', events: 1 },
        { value: null, events: 1 },
      ],
      releases: [
        { value: '1.0.1', events: 3 },
        { value: '1.0.0', events: 1 },
      ],
      environments: [
        { value: 'production', events: 3 },
        { value: null, events: 1 },
      ],
      // Browser apps send no runtime or device context.
      runtimes: [{ value: null, events: 4 }],
      devices: [{ value: null, events: 4 }],
    });
  });
});
