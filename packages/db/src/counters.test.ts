// The counter ledger: counts read the same before and after a fold, while folds run beside writers, and the deltas of
// an app deleted meanwhile are dropped rather than folded.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { counters, foldAll, foldCounters, ledgerTables } from './counters';
import { EventWriter } from './event-writer';
import { batch, errorEvent, openWritePathDatabase, someHour } from './write-path/testing';

const { db, newAccount, store } = await openWritePathDatabase('ledger');
// The vacuum's test on a database of its own: with TEST_DATABASE_URL the other test files' transactions in the shared
// one hold back what a vacuum may remove, and the ledger's pages then cannot be reused (a flaky failure in CI).
const quiet = await openWritePathDatabase('ledger_vacuum', { ownDatabase: true });

/** Every counter's rows of the app (as its view shows them), and its issues as issues_live shows them. */
async function snapshot(appKey: string, orgId: string) {
  const views: Record<string, unknown[]> = {};
  for (const { table, keys, owner } of counters) {
    const key = owner === 'apps' ? sql`app_key = ${appKey}` : sql`org_id = ${orgId}`;
    const order = sql.join(keys.map((name) => sql.id(name)));
    const { rows } = await sql<
      Record<string, unknown>
    >`select * from ${sql.table(table)} where ${key} order by ${order}`.execute(db);
    views[table] = rows;
  }
  const issues = await db
    .selectFrom('issues_live')
    .select(['fingerprint', 'event_count', 'user_count', 'first_seen_at', 'last_seen_at', 'level', 'last_release'])
    .where('app_key', '=', appKey)
    .orderBy('fingerprint')
    .execute();
  return { views, issues };
}

const unfolded = async (appKey: string) => {
  const { rows } = await sql<{ n: number }>`select (
      (select count(*) from app_totals_deltas where app_key = ${appKey}) +
      (select count(*) from issue_deltas where app_key = ${appKey}))::int8 as n`.execute(db);
  return rows[0]?.n;
};

describe('the counter ledger', () => {
  it('shows the same counts before and after a fold, and folds the deltas into the folded rows', async () => {
    const { orgId, newApp } = await newAccount();
    const appKey = await newApp();
    const events = (from: number, level: 'error' | 'fatal', release: string) =>
      Array.from({ length: 10 }, (_, i) =>
        errorEvent(appKey, `e${from + i}`, {
          fingerprint: `js:f${i % 3}`,
          anonymousId: `anon_${i % 4}`,
          timestamp: someHour + (from + i) * 60_000,
          level,
          release,
        }),
      );
    await store(batch(appKey, events(0, 'error', '1.0.0')));
    await store(batch(appKey, events(10, 'fatal', '1.1.0')));
    expect(await unfolded(appKey)).toBeGreaterThan(0);
    const before = await snapshot(appKey, orgId);
    expect(before.views.app_totals).toEqual([
      { app_key: appKey, events: 20, errors: 20, failed_requests: 0, issues: 3, users: 4 },
    ]);
    expect(before.issues.map((issue) => [issue.event_count, issue.level, issue.last_release])).toEqual([
      [8, 'fatal', '1.1.0'],
      [6, 'fatal', '1.1.0'],
      [6, 'fatal', '1.1.0'],
    ]);
    // A release's events, new issues (each counted in its first event's release), first and last event.
    expect(before.views.app_releases).toEqual([
      {
        app_key: appKey,
        release: '1.0.0',
        events: 10,
        new_issues: 3,
        first_seen: someHour,
        last_seen: someHour + 9 * 60_000,
      },
      {
        app_key: appKey,
        release: '1.1.0',
        events: 10,
        new_issues: 0,
        first_seen: someHour + 10 * 60_000,
        last_seen: someHour + 19 * 60_000,
      },
    ]);

    expect(await foldCounters(db)).toBeGreaterThan(0);
    expect(await unfolded(appKey)).toBe(0);
    expect(await snapshot(appKey, orgId)).toEqual(before);
    const folded = await db
      .selectFrom('issues')
      .select(['event_count', 'level'])
      .where('app_key', '=', appKey)
      .orderBy('fingerprint')
      .execute();
    expect(folded).toEqual([
      { event_count: 8, level: 'fatal' },
      { event_count: 6, level: 'fatal' },
      { event_count: 6, level: 'fatal' },
    ]);

    // An older event after the fold keeps the latest level and widens first seen; a later fold agrees.
    await store(
      batch(appKey, [
        errorEvent(appKey, 'old', {
          fingerprint: 'js:f0',
          timestamp: someHour - 60_000,
          level: 'info',
          release: '0.9',
        }),
      ]),
    );
    const late = await snapshot(appKey, orgId);
    expect(late.issues[0]).toMatchObject({ event_count: 9, level: 'fatal', last_release: '1.1.0' });
    expect(late.issues[0]?.first_seen_at).toBe(someHour - 60_000);
    await foldCounters(db);
    expect(await snapshot(appKey, orgId)).toEqual(late);

    // A folded release's first and last event widen with a later statement's (least and greatest), before and after
    // the next fold.
    await store(
      batch(appKey, [
        errorEvent(appKey, 'early', { fingerprint: 'js:f1', timestamp: someHour - 120_000, release: '1.1.0' }),
        errorEvent(appKey, 'late', { fingerprint: 'js:new', timestamp: someHour + 30 * 60_000, release: '1.1.0' }),
      ]),
    );
    const spans = await snapshot(appKey, orgId);
    expect(spans.views.app_releases).toContainEqual({
      app_key: appKey,
      release: '1.1.0',
      events: 12,
      new_issues: 1,
      first_seen: someHour - 120_000,
      last_seen: someHour + 30 * 60_000,
    });
    await foldCounters(db);
    expect(await snapshot(appKey, orgId)).toEqual(spans);
  });

  it('lets one fold run at a time', async () => {
    const results = await db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${sql.lit(0x6c6564676572)})`.execute(trx);
      return foldCounters(db);
    });
    expect(results).toBe(false);
    // The lock is the session's while it folds, and given back after.
    expect(await foldCounters(db)).toBeTypeOf('number');
    expect(await foldCounters(db)).toBeTypeOf('number');
  });

  it('keeps every count exact while folds run beside concurrent writers', async () => {
    const { orgId, newApp } = await newAccount();
    const appKey = await newApp();
    const writer = new EventWriter(db, { concurrency: 3, maxEventsPerWrite: 100, overlapAt: 1 });
    let folding = true;
    const folds = (async () => {
      let runs = 0;
      while (folding) {
        await foldCounters(db);
        runs += 1;
      }
      return runs;
    })();
    await Promise.all(
      Array.from({ length: 20 }, (_, b) =>
        writer.write(
          batch(
            appKey,
            Array.from({ length: 25 }, (_, i) =>
              errorEvent(appKey, `c${b}_${i}`, { fingerprint: `js:f${i % 5}`, anonymousId: `anon_${(b * i) % 13}` }),
            ),
          ),
        ),
      ),
    );
    folding = false;
    expect(await folds).toBeGreaterThan(0);
    const { views, issues } = await snapshot(appKey, orgId);
    expect(views.app_totals).toEqual([
      { app_key: appKey, events: 500, errors: 500, failed_requests: 0, issues: 5, users: 13 },
    ]);
    expect(issues.reduce((sum, issue) => sum + issue.event_count, 0)).toBe(500);
    expect(views.app_hourly).toEqual([
      { app_key: appKey, hour_start: someHour, events: 500, errors: 500, failed_requests: 0 },
    ]);
    expect(views.outcomes).toEqual([expect.objectContaining({ app_key: appKey, reason: 'accepted', events: 500 })]);
    await foldCounters(db);
    expect(await snapshot(appKey, orgId)).toEqual({ views, issues });
  });

  it('drops the deltas of an app deleted before they were folded', async () => {
    const { newApp } = await newAccount();
    const appKey = await newApp();
    await store(batch(appKey, [errorEvent(appKey, 'gone')]));
    await db.deleteFrom('apps').where('app_key', '=', appKey).execute();
    await foldCounters(db);
    expect(await unfolded(appKey)).toBe(0);
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int8 as n from app_totals_folded where app_key = ${appKey}`.execute(db);
    expect(rows[0]?.n).toBe(0);
  });

  it('folds only the tables that hold deltas, after one look at all of them: an idle ledger costs one statement', async () => {
    let statements = 0;
    const counted = quiet.db.withPlugin({
      transformQuery: ({ node }) => {
        statements++;
        return node;
      },
      transformResult: async ({ result }) => result,
    });
    await foldCounters(quiet.db, { wait: true });
    expect(await foldAll(counted)).toBe(0);
    expect(statements).toBe(1);

    const { newApp } = await quiet.newAccount();
    const appKey = await newApp();
    await quiet.store(batch(appKey, [errorEvent(appKey, 'idle1'), errorEvent(appKey, 'idle2')]));
    let holding = 0;
    for (const table of ledgerTables) {
      const { rows } = await sql<{ any: boolean }>`select exists (select from ${sql.table(table)}) as any`.execute(
        quiet.db,
      );
      if (rows[0]?.any) holding++;
    }
    expect(holding).toBeGreaterThan(0);
    expect(holding).toBeLessThan(ledgerTables.length);
    statements = 0;
    expect(await foldAll(counted)).toBeGreaterThan(0);
    expect(statements).toBe(1 + holding);
    const { rows } = await sql<{ events: number }>`select events from app_totals where app_key = ${appKey}`.execute(
      quiet.db,
    );
    expect(Number(rows[0]?.events)).toBe(2);
    statements = 0;
    expect(await foldAll(counted)).toBe(0);
    expect(statements).toBe(1);
  });

  it('keeps the ledger short: a fold that vacuums lets the next deltas reuse the pages the last fold emptied, and a quiet one gives them back', async () => {
    const { db } = quiet;
    const { newApp } = await quiet.newAccount();
    const appKey = await newApp();
    const size = async () => {
      const { rows } = await sql<{ bytes: string }>`select pg_relation_size('app_totals_deltas') as bytes`.execute(db);
      return Number(rows[0]?.bytes);
    };
    // Each round appends 5,000 deltas and folds them (a batch's worth of seconds in a busy ledger).
    const round = async (vacuum: boolean) => {
      await sql`insert into app_totals_deltas (app_key, events, errors, failed_requests, issues, users)
        select ${appKey}, 1, 1, 0, 0, 0 from generate_series(1, 5000)`.execute(db);
      await foldCounters(db, { wait: true, vacuum });
      return size();
    };
    await foldCounters(db, { wait: true, vacuum: true });
    // Without a vacuum, every round's dead rows keep their pages and the table grows.
    const first = await round(false);
    const second = await round(false);
    expect(second).toBeGreaterThan(first);
    // With one after each fold, the next rounds reuse them (the first still found them taken).
    const vacuumed = await round(true);
    await round(true);
    expect(await round(true)).toBeLessThanOrEqual(vacuumed);
    // Once a fold finds nothing to move, its vacuum gives the empty pages back.
    await foldCounters(db, { wait: true, vacuum: true });
    expect(await size()).toBeLessThan(first);
    const { rows } = await sql<{ events: number }>`select events from app_totals where app_key = ${appKey}`.execute(db);
    expect(Number(rows[0]?.events)).toBe(25_000);
  });
});
