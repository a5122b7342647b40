// The retention run's partition upkeep against a real database of its own (a run changes the whole database, so never
// the shared PostgreSQL test database): a day's events that waited in the default partition move into the day's
// partition when it is created, a run stops between statements when asked to, it trims the issues' daily counts to
// what their series can show, and it counts the events of the days it drops before dropping them.
import { DAY, type StoredEvent } from '@collector/domain';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { insertApp } from './apps';
import { openDatabase } from './connection';
import { prepareBatch, storePreparedBatches } from './ingest';
import { issueSeries } from './issues';
import { migrateToLatest } from './migrate';
import { ISSUE_DAYS_BACK, partitionName, runRetention } from './retention';

const database = await openDatabase({ dataDir: 'memory://' });
afterAll(() => database.close());
const db = database.db;
await migrateToLatest(db);
await sql`insert into users (id, email, password_hash, created_at) values ('user_ret', 'ret@example.com', '-', 0)`.execute(
  db,
);

/** An app of user_ret's; each test keeps its events in one of its own. */
const addApp = (appKey: string, name: string, keyDigit: string) =>
  insertApp(db, {
    app_key: appKey,
    user_id: 'user_ret',
    name,
    type: 'web',
    created_at: 0,
    public_key: keyDigit.repeat(32),
  });
await addApp('web_ret', 'R', 'a');

/** Noon UTC today, so that a few hours either way stay within the day. */
const noonToday = () => Math.floor(Date.now() / DAY) * DAY + 12 * 3_600_000;

const partitionOf = async (eventId: string) =>
  (
    await sql<{
      partition: string;
    }>`select tableoid::regclass::text as partition from events where event_id = ${eventId}`.execute(db)
  ).rows[0]?.partition;

describe('retention run: partitions', () => {
  it('moves the events of a day that had no partition out of the default one when it creates it', async () => {
    // Ten days ahead: the migration created partitions two days ahead only, so the event waits in the default one.
    const later = Math.floor(Date.now() / DAY) * DAY + 10 * DAY;
    const event = {
      eventId: 'evt_ahead',
      appKey: 'web_ret',
      type: 'error' as const,
      timestamp: later + 1000,
      fingerprint: 'TypeError:a',
    };
    await storePreparedBatches(db, [prepareBatch({ appKey: 'web_ret', events: [event], receivedAt: later + 1000 })]);
    expect(await partitionOf('evt_ahead')).toBe('events_default');

    const report = await runRetention(db, { retentionDays: 90, maxEventsPerIssue: 10_000 }, later + 2000);
    expect(report.partitionsCreated).toBeGreaterThan(0);
    expect(await partitionOf('evt_ahead')).toBe(partitionName(later / DAY));
    // Its indexes came with it, as for every partition.
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int4 as n from pg_indexes where tablename = ${partitionName(later / DAY)}`.execute(db);
    expect(rows[0]?.n).toBe(2);
  });

  it('stops between two statements when its signal is aborted', async () => {
    const aborted = new AbortController();
    aborted.abort();
    await expect(
      runRetention(db, { retentionDays: 1, maxEventsPerIssue: 10_000 }, Date.now(), { signal: aborted.signal }),
    ).rejects.toThrow();
  });
});

describe('retention run: issue_days', () => {
  it('deletes the days older than any series shows, in chunks; the series stays the same', async () => {
    await addApp('web_days', 'D', 'b');
    const now = noonToday();
    const today = now / DAY - 0.5;
    // Two issues, each with events on days from 45 back to today, every batch received when its events happened.
    const daysBack = [45, 40, ISSUE_DAYS_BACK + 1, ISSUE_DAYS_BACK, ISSUE_DAYS_BACK - 1, 29, 10, 0];
    for (const back of daysBack) {
      const at = now - back * DAY;
      const events: StoredEvent[] = ['TypeError:a', 'RangeError:b'].map((fingerprint, i) => ({
        eventId: `evt_days_${back}_${i}`,
        appKey: 'web_days',
        type: 'error',
        timestamp: at - i,
        fingerprint,
      }));
      await storePreparedBatches(db, [prepareBatch({ appKey: 'web_days', events, receivedAt: at })]);
    }
    const days = async () =>
      (
        await sql<{ day: number }>`select distinct day from issue_days where app_key = 'web_days' order by day`.execute(
          db,
        )
      ).rows.map((row) => today - row.day);
    const series = () =>
      Promise.all(
        ['TypeError:a', 'RangeError:b'].map((fingerprint) => issueSeries(db, { appKey: 'web_days', fingerprint, now })),
      );
    expect(await days()).toEqual(daysBack);
    const before = await series();
    expect(before[0]?.filter((day) => day.events > 0)).toHaveLength(3);

    // Chunks of one row: the walk over the primary key resumes after each.
    const report = await runRetention(db, { retentionDays: 90, maxEventsPerIssue: 10_000 }, now, { chunk: 1 });
    expect(report.issueDaysTrimmed).toBe(6);
    expect(await days()).toEqual(daysBack.filter((back) => back <= ISSUE_DAYS_BACK));
    expect(await series()).toEqual(before);
    // Nothing left to trim: a second run deletes nothing.
    expect((await runRetention(db, { retentionDays: 90, maxEventsPerIssue: 10_000 }, now)).issueDaysTrimmed).toBe(0);
  });
});

describe('retention run: dropped days', () => {
  it('counts the events of each dropped day per app and minute, walking the index in ranges, before the drop', async () => {
    await addApp('web_drop', 'X', 'c');
    const now = noonToday();
    const day = now - 20 * DAY - 12 * 3_600_000;
    // 45 events over three minutes of a day 20 days back, ties included; a failed request every third.
    const events: StoredEvent[] = Array.from({ length: 45 }, (_, i) => ({
      eventId: `evt_drop_${i}`,
      appKey: 'web_drop',
      type: i % 3 === 2 ? 'request' : 'error',
      timestamp: day + Math.floor(i / 15) * 60_000 + (i % 5),
      fingerprint: 'TypeError:drop',
    }));
    await storePreparedBatches(db, [prepareBatch({ appKey: 'web_drop', events, receivedAt: day + 3 * 60_000 })]);
    expect(await partitionOf('evt_drop_0')).toBe(partitionName(day / DAY));

    // Chunks of one row: ranges of 20 rows, each ending on a tie of five.
    const report = await runRetention(db, { retentionDays: 10, maxEventsPerIssue: 10_000 }, now, { chunk: 1 });
    expect(report.partitionsDropped).toBeGreaterThan(0);
    expect(report.eventsDropped).toBeGreaterThanOrEqual(45);
    expect(await partitionOf('evt_drop_0')).toBeUndefined();
    const { rows } = await sql<{ minute: number; events: number; errors: number; failed_requests: number }>`
      select minute, events, errors, failed_requests from deleted_event_minutes where app_key = 'web_drop' order by minute`.execute(
      db,
    );
    expect(rows).toEqual(
      [0, 1, 2].map((i) => ({ minute: day / 60_000 + i, events: 15, errors: 10, failed_requests: 5 })),
    );
  });
});
