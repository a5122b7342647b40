// Migration 0015: event payloads compressed with lz4 where the server has it (the machine's PostgreSQL in CI), in the
// day partitions there at migration time and in those the retention run creates later; pglz where it has not (the
// embedded default's binaries). On a database of its own: the retention run changes the whole database.
import { DAY, type StoredEvent } from '@collector/domain';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyTestDatabaseUrl } from '../../test/database';
import { insertApp } from '../apps';
import { openDatabase } from '../connection';
import { prepareBatch, storePreparedBatches } from '../ingest';
import { migrateToLatest } from '../migrate';
import { runRetention } from '../retention';

const database = await openDatabase({ url: await emptyTestDatabaseUrl() });
afterAll(() => database.close());
const db = database.db;
await migrateToLatest(db);

const serverHasLz4 = async () =>
  (
    await sql<{
      lz4: boolean;
    }>`select 'lz4' = any(enumvals) as lz4 from pg_settings where name = 'default_toast_compression'`.execute(db)
  ).rows[0]?.lz4 === true;

/** The payload column's compression setting of events and each of its partitions: 'l' lz4, '' the server's default. */
const settings = async () =>
  (
    await sql<{ setting: string }>`
      select a.attcompression::text as setting from pg_attribute a
      where a.attname = 'payload' and a.attrelid in (select 'events'::regclass union all select inhrelid from pg_inherits where inhparent = 'events'::regclass)`.execute(
      db,
    )
  ).rows.map((row) => row.setting);

describe('migration 0015: event payloads in lz4 where the server has it', () => {
  it('sets every partition, old and new, and stores payloads so', async () => {
    const lz4 = await serverHasLz4();
    const expected = lz4 ? 'l' : '';
    const before = await settings();
    expect(before.length).toBeGreaterThan(30); // events, the default partition and the days around today
    expect(new Set(before)).toEqual(new Set([expected]));

    // Twenty days ahead the run creates the partitions of the days up to then.
    const later = Math.floor(Date.now() / DAY) * DAY + 20 * DAY;
    const report = await runRetention(db, { retentionDays: 90, maxEventsPerIssue: 10_000 }, later);
    expect(report.partitionsCreated).toBeGreaterThan(0);
    const after = await settings();
    expect(after.length).toBe(before.length + report.partitionsCreated);
    expect(new Set(after)).toEqual(new Set([expected]));

    // A payload big enough to be compressed, in a partition the run created.
    await sql`insert into users (id, email, password_hash, created_at) values ('user_lz4', 'lz4@example.com', '-', 0)`.execute(
      db,
    );
    await insertApp(db, {
      app_key: 'web_lz4',
      user_id: 'user_lz4',
      name: 'L',
      type: 'web',
      created_at: 0,
      public_key: 'c'.repeat(32),
    });
    const event: StoredEvent = {
      eventId: 'evt_big',
      appKey: 'web_lz4',
      type: 'error',
      timestamp: later + 1000,
      fingerprint: 'TypeError:a',
      message: 'x'.repeat(8000),
    };
    await storePreparedBatches(db, [prepareBatch({ appKey: 'web_lz4', events: [event], receivedAt: later + 1000 })]);
    const { rows } = await sql<{
      method: string | null;
    }>`select pg_column_compression(payload) as method from events where event_id = 'evt_big'`.execute(db);
    expect(rows).toEqual([{ method: lz4 ? 'lz4' : 'pglz' }]);
  });
});
