// Migration 0011 on a database that 0008 left with events: every event moves into the day partitions (or the default
// one), its id into event_ids, so a retry after the migration is still a duplicate; down restores the plain table.
// On a fresh embedded database: the PostgreSQL test database is shared and already migrated (global-setup.ts).
import { DAY } from '@collector/domain';
import { Migrator, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { insertUserAndApp } from '../../test/database';
import { openDatabase } from '../connection';
import { prepareBatch, storePreparedBatches } from '../ingest';
import { migrations } from './index';

const database = await openDatabase({ dataDir: 'memory://' });
afterAll(() => database.close());
const db = database.db;
const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });

const stored = async () =>
  (
    await sql<{
      event_id: string;
      partition: string;
    }>`select event_id, tableoid::regclass::text as partition from events order by event_id`.execute(db)
  ).rows;

describe('migration 0011: events partitioned by day, ids in event_ids', () => {
  it('carries every event over, keeps their ids as duplicates, and goes back', async () => {
    expect((await migrator.migrateTo('2026_11_23_0008_activity_kind_names')).error).toBeUndefined();
    await insertUserAndApp(db, 'user_r', 'web_r');
    await sql`insert into app_totals (app_key) values ('web_r')`.execute(db);
    const today = Math.floor(Date.now() / DAY) * DAY;
    // An event of today, one 200 days old (its day gets a partition too), one before 1970 (the default partition).
    for (const [id, timestamp] of [
      ['evt_today', today + 1000],
      ['evt_old', today - 200 * DAY],
      ['evt_ancient', -5 * DAY],
    ] as const) {
      await sql`insert into events (app_key, event_id, fingerprint, type, timestamp, received_at, anonymous_id, payload)
        values ('web_r', ${id}, 'TypeError:a', 'error', ${timestamp}, ${timestamp}, null, ${JSON.stringify({ eventId: id })}::jsonb)`.execute(
        db,
      );
    }

    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const day = (ms: number) => `events_${new Date(ms).toISOString().slice(0, 10).replaceAll('-', '_')}`;
    expect(await stored()).toEqual([
      { event_id: 'evt_ancient', partition: 'events_default' },
      { event_id: 'evt_old', partition: day(today - 200 * DAY) },
      { event_id: 'evt_today', partition: day(today) },
    ]);
    const ids = await db.selectFrom('event_ids').select(['event_id', 'day']).orderBy('event_id').execute();
    expect(ids).toEqual([
      { event_id: 'evt_ancient', day: -5 },
      { event_id: 'evt_old', day: today / DAY - 200 },
      { event_id: 'evt_today', day: today / DAY },
    ]);
    // The indexes of the plain table, now on every partition.
    const { rows: indexes } = await sql<{
      indexname: string;
    }>`select indexname from pg_indexes where tablename = 'events' order by 1`.execute(db);
    expect(indexes.map((row) => row.indexname)).toEqual(['events_app_timestamp_window', 'events_issue_timestamp']);
    // A retry of a migrated event is a duplicate.
    const event = {
      eventId: 'evt_today',
      appKey: 'web_r',
      type: 'error' as const,
      timestamp: today + 1000,
      fingerprint: 'TypeError:a',
    };
    const [retry] = await storePreparedBatches(db, [
      prepareBatch({ appKey: 'web_r', events: [event], receivedAt: today + 2000 }),
    ]);
    expect(retry).toMatchObject({ stored: 0, duplicates: 1 });

    expect((await migrator.migrateTo('2026_11_23_0008_activity_kind_names')).error).toBeUndefined();
    expect((await stored()).map((row) => [row.event_id, row.partition])).toEqual([
      ['evt_ancient', 'events'],
      ['evt_old', 'events'],
      ['evt_today', 'events'],
    ]);
    const { rows: keys } = await sql<{
      conname: string;
    }>`select conname from pg_constraint where conrelid = 'events'::regclass and contype = 'p'`.execute(db);
    expect(keys).toEqual([{ conname: 'events_pkey' }]);
  });
});
