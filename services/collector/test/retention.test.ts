// Retention and the cap per issue, through HTTP, on a database of this file's own (a retention run changes the whole
// database): events older than RETENTION_DAYS are deleted while every total stays; retries of deleted events are
// still duplicates; the cap keeps the newest payloads with exact counts; ingestion loses nothing while a run goes on;
// the issues' daily counts are trimmed to what their series can show, and the series stay the same.
import { sql } from '@collector/db';
import { describe, expect, it } from 'vitest';
import {
  createApp,
  freshDatabase,
  makeEvent,
  PASSWORD,
  sendBatch,
  signUp,
  startTestServer,
  type TestDatabase,
  type TestServer,
  type TestServerOptions,
} from './harness';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A server on `database` whose clock stands at `now`, with the retention job when given its options. */
const serverAt = (database: TestDatabase, now: number, retention?: TestServerOptions['retention']) =>
  startTestServer({ database, clock: () => now, retention });

/** Everything a user can read about an app's counts: none of it may change when payloads are deleted. */
async function countsOf(server: TestServer, token: string, appKey: string, now: number) {
  const get = async (path: string) => {
    const reply = await server.call('GET', path, { token });
    expect(reply.status, path).toBe(200);
    return reply.body;
  };
  // An old window whose edge hours hold no events: answered from the rollups alone.
  const oldFrom = Math.floor((now - 4 * DAY) / HOUR) * HOUR;
  const oldTo = Math.floor((now - 2 * DAY) / HOUR) * HOUR + 30 * 60_000;
  const issues = (await get(`/api/issues?appKey=${appKey}`)).issues;
  return {
    overview: (await get(`/api/overview?appKey=${appKey}`)).totals,
    allApps: (await get('/api/overview')).totals,
    oldWindow: (await get(`/api/overview?appKey=${appKey}&from=${oldFrom}&to=${oldTo}`)).totals,
    issues: issues.map((issue: any) => ({
      id: issue.id,
      eventCount: issue.eventCount,
      userCount: issue.userCount,
      firstSeenAt: issue.firstSeenAt,
      lastSeenAt: issue.lastSeenAt,
    })),
    series: await Promise.all(
      issues.map(async (issue: any) => (await get(`/api/issues/${encodeURIComponent(issue.id)}?limit=1`)).issue.series),
    ),
    hourly: (await get(`/api/overview/timeseries?appKey=${appKey}&bucket=hour&from=${now - 5 * DAY}&to=${now + HOUR}`))
      .buckets,
    daily: (await get(`/api/overview/timeseries?appKey=${appKey}&bucket=day&from=${now - 10 * DAY}&to=${now + DAY}`))
      .buckets,
  };
}

// The embedded database on disk, restarted and migrated per test, is slow on a busy machine.
describe('retention', { timeout: 180_000 }, () => {
  it('a restart with RETENTION_DAYS=1 deletes the events older than a day; every total, series and issue count stays', async () => {
    const database = await freshDatabase();
    const now = Date.now();
    const first = await serverAt(database, now);
    const { token } = await signUp(first);
    const { appKey } = await createApp(first, token);
    // Three days ago (two issues, three users), and an hour ago (one of those issues and a new one).
    const old = [
      ...Array.from({ length: 6 }, (_, i) =>
        makeEvent({ timestamp: now - 3 * DAY + i * 60_000, anonymousId: `anon_old${i % 3}` }),
      ),
      ...Array.from({ length: 3 }, (_, i) =>
        makeEvent({ timestamp: now - 3 * DAY + i, errorType: 'RangeError', message: 'Invalid array length' }),
      ),
    ];
    const recent = [
      ...Array.from({ length: 4 }, (_, i) => makeEvent({ timestamp: now - HOUR + i, anonymousId: `anon_new${i % 2}` })),
      makeEvent({
        type: 'request',
        timestamp: now - HOUR,
        request: { method: 'GET', url: 'https://shop.example/api/cart', status: 500 },
        errorType: undefined,
        stack: undefined,
      }),
    ];
    expect((await sendBatch(first, appKey, [...old, ...recent])).body).toMatchObject({
      accepted: 14,
      duplicates: 0,
      rejected: [],
    });
    const before = await countsOf(first, token, appKey, now);
    expect(before.overview.events).toBe(14);
    expect(before.oldWindow.events).toBe(9);
    const typeErrorIssue = before.issues.find((issue: any) => issue.eventCount === 10);
    expect(typeErrorIssue).toBeDefined();
    await first.stop();

    const second = await serverAt(database, now, { retentionDays: 1, maxEventsPerIssue: 10_000 });
    const report = await second.retention!.runNow();
    expect(report.cutoff).toBe(now - DAY);

    // The issue's event list shows what is still stored: the recent events only. The RangeError issue has none left.
    const detail = await second.call('GET', `/api/issues/${encodeURIComponent(typeErrorIssue.id)}?limit=100`, {
      token,
    });
    expect(detail.status).toBe(200);
    expect(detail.body.events.map((event: any) => event.eventId).sort()).toEqual(
      recent
        .slice(0, 4)
        .map((event) => event.eventId)
        .sort(),
    );
    expect(detail.body.issue.eventCount).toBe(10);
    const stored = await sql<{ n: number }>`select count(*)::int8 as n from events where app_key = ${appKey}`.execute(
      second.database.db,
    );
    expect(stored.rows[0]?.n).toBe(5);
    expect(await countsOf(second, token, appKey, now)).toEqual(before);

    // A retry of a deleted event is a duplicate: accepted (as every retry is) but neither stored nor counted again.
    const retry = await sendBatch(second, appKey, [old[0], old[7]]);
    expect(retry.body).toMatchObject({ accepted: 2, duplicates: 2, rejected: [] });
    expect(await countsOf(second, token, appKey, now)).toEqual(before);

    // An event older than the retention when it arrives is accepted and counted, and deleted by the next run.
    const late = makeEvent({ timestamp: now - 2 * DAY });
    expect((await sendBatch(second, appKey, [late])).body).toMatchObject({ accepted: 1, duplicates: 0 });
    const counted = await second.call('GET', `/api/overview?appKey=${appKey}`, { token });
    expect(counted.body.totals.events).toBe(15);
    await second.retention!.runNow();
    const afterLate = await sql<{
      n: number;
    }>`select count(*)::int8 as n from events where app_key = ${appKey}`.execute(second.database.db);
    expect(afterLate.rows[0]?.n).toBe(5);
    expect((await second.call('GET', `/api/overview?appKey=${appKey}`, { token })).body.totals.events).toBe(15);
    expect((await sendBatch(second, appKey, [late])).body).toMatchObject({ accepted: 1, duplicates: 1 });
  });

  it('trims the daily counts of issues to the days their series shows; the series and every count stay', async () => {
    const database = await freshDatabase();
    const now = Date.now();
    // The server's clock moves: the first events are received 40 and 35 days before now, as they happened.
    let at = now - 40 * DAY;
    const first = await startTestServer({ database, clock: () => at });
    const { email } = await signUp(first);
    const login = async (server: TestServer) =>
      (await server.call('POST', '/api/auth/login', { body: { email, password: PASSWORD } })).body.token as string;
    const { appKey } = await createApp(first, await login(first));
    const sendAt = async (received: number, events: Array<Record<string, unknown>>) => {
      at = received;
      expect((await sendBatch(first, appKey, events)).body).toMatchObject({ accepted: events.length, duplicates: 0 });
    };
    await sendAt(now - 40 * DAY, [
      makeEvent({ timestamp: now - 40 * DAY - 1000 }),
      makeEvent({ errorType: 'RangeError', message: 'Invalid array length', timestamp: now - 40 * DAY }),
    ]);
    await sendAt(now - 35 * DAY, [makeEvent({ timestamp: now - 35 * DAY })]);
    await sendAt(now - DAY, [makeEvent({ timestamp: now - 29 * DAY }), makeEvent({ timestamp: now - DAY - 1000 })]);
    await sendAt(now, [
      makeEvent({ timestamp: now - 1000 }),
      makeEvent({ errorType: 'RangeError', message: 'Invalid array length', timestamp: now - 2000 }),
    ]);
    const before = await countsOf(first, await login(first), appKey, now);
    expect(before.series.map((series: any[]) => series.reduce((sum, day) => sum + day.events, 0)).sort()).toEqual([
      1, 3,
    ]);
    const days = async (server: TestServer) =>
      (
        await sql<{ n: number }>`select count(*)::int4 as n from issue_days where app_key = ${appKey}`.execute(
          server.database.db,
        )
      ).rows[0]?.n;
    expect(await days(first)).toBe(7);
    await first.stop();

    // The run at start: RETENTION_DAYS=90 keeps every event, but the days 35 and 40 back are gone from issue_days (the
    // run asked for here finds nothing more to do).
    const second = await serverAt(database, now, { retentionDays: 90, maxEventsPerIssue: 10_000 });
    const report = await second.retention!.runNow();
    expect(report).toMatchObject({ eventsDeleted: 0, issueDaysTrimmed: 0 });
    expect(await days(second)).toBe(4);
    expect(await countsOf(second, await login(second), appKey, now)).toEqual(before);
  });

  it('a window with an edge in an hour whose events were deleted (dropped day, chunks, cap) still counts every event', async () => {
    const database = await freshDatabase();
    // Noon UTC: the cut-off of RETENTION_DAYS=1 is yesterday noon, so yesterday's morning is deleted in chunks.
    const now = Math.floor(Date.now() / DAY) * DAY + 12 * HOUR;
    const first = await serverAt(database, now);
    const { email, token } = await signUp(first);
    const { appKey } = await createApp(first, token);
    const MINUTE = 60_000;
    // Three hours, each with events every two minutes (a failed request every fifth) from five users and two issues:
    // one in a day the run drops whole, one in the day it deletes in chunks, one (recent) of an issue over the cap.
    const dropped = now - 3 * DAY - 2 * HOUR;
    const chunked = now - DAY - 2 * HOUR;
    const capped = now - 2 * HOUR;
    const hourOf = (start: number, name: string) =>
      Array.from({ length: 30 }, (_, i) =>
        i % 5 === 4
          ? makeEvent({
              type: 'request',
              timestamp: start + i * 2 * MINUTE + i,
              anonymousId: `anon_${i % 5}`,
              request: { method: 'GET', url: '/api/cart', status: 500 },
              errorType: undefined,
              stack: undefined,
              fingerprint: `request:${name}`,
            })
          : makeEvent({
              timestamp: start + i * 2 * MINUTE + i,
              anonymousId: `anon_${i % 5}`,
              fingerprint: `TypeError:${name}`,
            }),
      );
    for (const [start, name] of [
      [dropped, 'dropped'],
      [chunked, 'chunked'],
      [capped, 'capped'],
    ] as const) {
      expect((await sendBatch(first, appKey, hourOf(start, name))).body).toMatchObject({ accepted: 30 });
    }
    // Windows whose start, end or both fall inside each hour, on whole minutes.
    const windows = [dropped, chunked, capped].flatMap((start) => [
      { from: start + 20 * MINUTE, to: now + 1 },
      { from: start - 3 * HOUR, to: start + 41 * MINUTE },
      { from: start + 9 * MINUTE, to: start + 50 * MINUTE },
      { from: start - 30 * MINUTE, to: start + 30 * MINUTE },
    ]);
    const totals = async (server: TestServer, bearer: string) =>
      Promise.all(
        windows.map(async ({ from, to }) => {
          const reply = await server.call('GET', `/api/overview?appKey=${appKey}&from=${from}&to=${to}`, {
            token: bearer,
          });
          expect(reply.status).toBe(200);
          return reply.body.totals;
        }),
      );
    const before = await totals(first, token);
    expect(before[0]).toMatchObject({ events: 80, failedRequests: 16 });
    await first.stop();

    const second = await serverAt(database, now, { retentionDays: 1, maxEventsPerIssue: 5, chunk: 7 });
    await second.retention!.runNow();
    const stored = async (from: number) =>
      (
        await sql<{
          n: number;
        }>`select count(*)::int4 as n from events where app_key = ${appKey} and timestamp >= ${from} and timestamp < ${from + HOUR}`.execute(
          second.database.db,
        )
      ).rows[0]?.n;
    // The capped hour keeps the newest five payloads of each of its two issues.
    expect([await stored(dropped), await stored(chunked), await stored(capped)]).toEqual([0, 0, 10]);
    const bearer = (await second.call('POST', '/api/auth/login', { body: { email, password: PASSWORD } })).body.token;
    const after = await totals(second, bearer);
    // Events, errors and failed requests: exact. Distinct users and issues of deleted events: a lower bound.
    const counts = (list: any[]) =>
      list.map(({ events, errors, failedRequests }) => ({ events, errors, failedRequests }));
    expect(counts(after)).toEqual(counts(before));
    after.forEach((window: any, i: number) => {
      expect(window.affectedUsers).toBeLessThanOrEqual(before[i].affectedUsers);
      expect(window.issues).toBeLessThanOrEqual(before[i].issues);
    });
  });

  it('keeps the payloads of the newest MAX_EVENTS_PER_ISSUE events per issue, with exact counts', async () => {
    const database = await freshDatabase();
    const now = Date.now();
    const server = await serverAt(database, now, { retentionDays: 90, maxEventsPerIssue: 5 });
    const { token } = await signUp(server);
    const { appKey } = await createApp(server, token);
    // Sent out of order: the cap goes by timestamp, not by arrival.
    const events = Array.from({ length: 12 }, (_, i) =>
      makeEvent({ timestamp: now - 10 * 60_000 + i * 1000, anonymousId: `anon_${i}` }),
    );
    const shuffled = [...events].sort((a, b) => String(a.eventId).localeCompare(String(b.eventId)));
    expect((await sendBatch(server, appKey, shuffled)).body).toMatchObject({ accepted: 12, duplicates: 0 });
    const other = makeEvent({
      errorType: 'RangeError',
      message: 'Invalid array length',
      timestamp: now - 20 * 60_000,
      anonymousId: 'anon_other',
    });
    await sendBatch(server, appKey, [other]);

    const report = await server.retention!.runNow();
    expect(report).toMatchObject({ issuesCapped: 1, payloadsCapped: 7 });
    const list = await server.call('GET', `/api/issues?appKey=${appKey}`, { token });
    const capped = list.body.issues.find((issue: any) => issue.errorType === 'TypeError');
    expect(capped).toMatchObject({ eventCount: 12, userCount: 12 });
    const detail = await server.call('GET', `/api/issues/${encodeURIComponent(capped.id)}`, { token });
    expect(detail.body.events.map((event: any) => event.eventId)).toEqual(
      events
        .slice(7)
        .reverse()
        .map((event) => event.eventId),
    );
    // The issue under the cap keeps its one event.
    const small = list.body.issues.find((issue: any) => issue.errorType === 'RangeError');
    expect(
      (await server.call('GET', `/api/issues/${encodeURIComponent(small.id)}`, { token })).body.events,
    ).toHaveLength(1);

    // Retries, of a capped payload and of a kept one: duplicates, nothing stored or counted again.
    expect((await sendBatch(server, appKey, [events[0], events[11]])).body).toMatchObject({
      accepted: 2,
      duplicates: 2,
    });
    // Three newer events: the next run keeps the five newest again; an unchanged issue is not revisited.
    const newer = Array.from({ length: 3 }, (_, i) =>
      makeEvent({ timestamp: now - 60_000 + i, anonymousId: 'anon_0' }),
    );
    await sendBatch(server, appKey, newer);
    expect(await server.retention!.runNow()).toMatchObject({ issuesCapped: 1, payloadsCapped: 3 });
    expect(await server.retention!.runNow()).toMatchObject({ issuesCapped: 0, payloadsCapped: 0 });
    const again = await server.call('GET', `/api/issues/${encodeURIComponent(capped.id)}`, { token });
    expect(again.body.issue).toMatchObject({ eventCount: 15 });
    expect(again.body.events.map((event: any) => event.eventId)).toEqual(
      [...events.slice(10), ...newer].reverse().map((event) => event.eventId),
    );
    expect((await server.call('GET', `/api/overview?appKey=${appKey}`, { token })).body.totals).toMatchObject({
      events: 16,
      issues: 2,
      affectedUsers: 13,
    });

    // A restart with a lower cap trims issues already trimmed to the higher one.
    await server.stop();
    const lower = await serverAt(database, now, { retentionDays: 90, maxEventsPerIssue: 2 });
    await lower.retention!.runNow(); // after the run at start, which did it
    const fewer = await lower.call('GET', `/api/issues/${encodeURIComponent(capped.id)}`, { token });
    expect(fewer.body.issue).toMatchObject({ eventCount: 15 });
    expect(fewer.body.events.map((event: any) => event.eventId)).toEqual(
      newer
        .slice(1)
        .reverse()
        .map((event) => event.eventId),
    );
  });

  it('loses nothing accepted after the cut-off while a run deletes under 20 clients ingesting', async () => {
    const database = await freshDatabase();
    const now = Date.now();
    // Small chunks: many short delete statements interleave with the writes.
    const server = await serverAt(database, now, { retentionDays: 1, maxEventsPerIssue: 10_000, chunk: 25 });
    const { token } = await signUp(server);
    const { appKey } = await createApp(server, token);
    // Work for the run: 2,000 events three days old (in the default partition: that day has none since the first run).
    for (let i = 0; i < 40; i++) {
      await sendBatch(
        server,
        appKey,
        Array.from({ length: 50 }, (_, j) => makeEvent({ timestamp: now - 3 * DAY + i * 50 + j })),
      );
    }

    let stop = false;
    const accepted: string[] = [];
    const client = async (n: number) => {
      while (!stop) {
        const events = Array.from({ length: 10 }, () =>
          makeEvent({ timestamp: now - 60_000, errorType: `Error${n % 4}` }),
        );
        const reply = await sendBatch(server, appKey, events);
        expect(reply.status).toBe(200);
        expect(reply.body).toMatchObject({ accepted: 10, duplicates: 0 });
        accepted.push(...events.map((event) => String(event.eventId)));
      }
    };
    const clients = Array.from({ length: 20 }, (_, n) => client(n));
    const runs = (async () => {
      try {
        for (let i = 0; i < 3; i++) await server.retention!.runNow();
      } finally {
        stop = true;
      }
    })();
    await Promise.all([runs, ...clients]);

    const totals = (await server.call('GET', `/api/overview?appKey=${appKey}`, { token })).body.totals;
    expect(totals.events).toBe(2000 + accepted.length);
    // Every event accepted (all after the cut-off) is stored, once; the old ones are gone.
    const { rows } = await sql<{ stored: number; distinct: number; old: number }>`
      select count(*) filter (where timestamp >= ${now - DAY})::int8 as stored, count(distinct event_id) filter (where event_id = any(${accepted}))::int8 as distinct,
        count(*) filter (where timestamp < ${now - DAY})::int8 as old
      from events where app_key = ${appKey}`.execute(server.database.db);
    expect(rows[0]).toEqual({ stored: accepted.length, distinct: accepted.length, old: 0 });
    expect(accepted.length).toBeGreaterThan(0);
  });
});
