// The retention run's partition upkeep against a real database of its own (a run changes the whole database, so never
// the shared PostgreSQL test database): a day's events that waited in the default partition move into the day's
// partition when it is created, and a run stops between statements when asked to.
import { DAY } from '@collector/domain';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { insertApp } from './apps';
import { openDatabase } from './connection';
import { prepareBatch, storePreparedBatches } from './ingest';
import { migrateToLatest } from './migrate';
import { partitionName, runRetention } from './retention';

const database = await openDatabase({ dataDir: 'memory://' });
afterAll(() => database.close());
const db = database.db;
await migrateToLatest(db);
await sql`insert into users (id, email, password_hash, created_at) values ('user_ret', 'ret@example.com', '-', 0)`.execute(db);
await insertApp(db, { app_key: 'web_ret', user_id: 'user_ret', name: 'R', type: 'web', created_at: 0, public_key: 'a'.repeat(32) });

const partitionOf = async (eventId: string) =>
  (await sql<{ partition: string }>`select tableoid::regclass::text as partition from events where event_id = ${eventId}`.execute(db)).rows[0]?.partition;

describe('retention run: partitions', () => {
  it('moves the events of a day that had no partition out of the default one when it creates it', async () => {
    // Ten days ahead: the migration created partitions two days ahead only, so the event waits in the default one.
    const later = Math.floor(Date.now() / DAY) * DAY + 10 * DAY;
    const event = { eventId: 'evt_ahead', appKey: 'web_ret', type: 'error' as const, timestamp: later + 1000, fingerprint: 'TypeError:a' };
    await storePreparedBatches(db, [prepareBatch({ appKey: 'web_ret', events: [event], receivedAt: later + 1000 })]);
    expect(await partitionOf('evt_ahead')).toBe('events_default');

    const report = await runRetention(db, { retentionDays: 90, maxEventsPerIssue: 10_000 }, later + 2000);
    expect(report.partitionsCreated).toBeGreaterThan(0);
    expect(await partitionOf('evt_ahead')).toBe(partitionName(later / DAY));
    // Its indexes came with it, as for every partition.
    const { rows } = await sql<{ n: number }>`select count(*)::int4 as n from pg_indexes where tablename = ${partitionName(later / DAY)}`.execute(db);
    expect(rows[0]?.n).toBe(2);
  });

  it('stops between two statements when its signal is aborted', async () => {
    const aborted = new AbortController();
    aborted.abort();
    await expect(runRetention(db, { retentionDays: 1, maxEventsPerIssue: 10_000 }, Date.now(), { signal: aborted.signal })).rejects.toThrow();
  });
});
