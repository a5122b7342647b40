// Migration 0016: the updates of an issue's row that add its events (since migration 0017, the counter fold's) are
// HOT (no new index entries, the new version in the same page), now that no index covers a column they change.
// Counted inside one transaction, which the statistics of the current transaction see at once. On a database of its
// own: a fold takes every committed delta, so on the shared one it would also update other tests' issues.
import type { StoredEvent } from '@collector/domain';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyTestDatabaseUrl } from '../../test/database';
import { insertApp } from '../apps';
import { openDatabase } from '../connection';
import { foldAll } from '../counters';
import { prepareBatch, storePreparedBatches } from '../ingest';
import { migrateToLatest } from '../migrate';

const database = await openDatabase({ url: await emptyTestDatabaseUrl() });
await migrateToLatest(database.db);
afterAll(() => database.close());
const suffix = Math.random().toString(36).slice(2, 10);

describe('migration 0016: HOT updates of issues', () => {
  it('updates an issue row in place for every later statement', async () => {
    const appKey = `web_hot${suffix}`;
    await sql`insert into users (id, email, password_hash, created_at) values (${`user_hot${suffix}`}, ${`hot${suffix}@example.com`}, '-', 0)`.execute(
      database.db,
    );
    await insertApp(database.db, {
      app_key: appKey,
      user_id: `user_hot${suffix}`,
      name: 'H',
      type: 'web',
      created_at: 0,
      public_key: 'd'.repeat(32),
    });
    const now = Date.now();
    const event = (i: number): StoredEvent => ({
      eventId: `evt_hot${i}`,
      appKey,
      type: 'error',
      timestamp: now + i,
      fingerprint: 'TypeError:hot',
      message: 'boom',
      anonymousId: `anon_${i}`,
    });
    const hot = await database.db.transaction().execute(async (trx) => {
      for (let i = 0; i < 6; i++) {
        await storePreparedBatches(trx, [prepareBatch({ appKey, events: [event(i)], receivedAt: now + i })]);
        await foldAll(trx);
      }
      const { rows } = await sql<{ updated: number; hot: number }>`
        select pg_stat_get_xact_tuples_updated('issues'::regclass)::int4 as updated, pg_stat_get_xact_tuples_hot_updated('issues'::regclass)::int4 as hot`.execute(
        trx,
      );
      return rows[0];
    });
    // The first statement inserts the issue; each fold after a statement updates it (and the last seen time) in place.
    expect(hot).toEqual({ updated: 6, hot: 6 });
  });
});
