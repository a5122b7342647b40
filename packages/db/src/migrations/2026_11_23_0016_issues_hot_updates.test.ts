// Migration 0016: the updates of an issue's row that add its events (since migration 0017, the counter fold's) are
// HOT (no new index entries, the new version in the same page), now that no index covers a column they change; until
// migration 0024 gives the list such an index again, for index-only scans, which the fold's updates (one an issue a
// fold, no longer one a write statement) then keep current.
// Counted inside one transaction, which the statistics of the current transaction see at once. On a database of its
// own: a fold takes every committed delta, so on the shared one it would also update other tests' issues.
import type { StoredEvent } from '@collector/domain';
import { type Migration, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyTestDatabaseUrl, insertUserAndApp } from '../../test/database';
import { openDatabase } from '../connection';
import { foldAll } from '../counters';
import { prepareBatch, storePreparedBatches } from '../ingest';
import { migrateToLatest } from '../migrate';
import { migrations } from './index';

const database = await openDatabase({ url: await emptyTestDatabaseUrl() });
afterAll(() => database.close());
const db = database.db;
const suffix = Math.random().toString(36).slice(2, 10);
const appKey = `web_hot${suffix}`;
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

/** Six write statements of one issue's events, each folded; the issue rows' updates and how many were HOT. */
async function statementsFolded(first: number) {
  return db.transaction().execute(async (trx) => {
    // The backend's counts not sent to the statistics yet, earlier transactions' included: taken before and after.
    const counts = async () =>
      (
        await sql<{ updated: number; hot: number }>`
          select pg_stat_get_xact_tuples_updated('issues'::regclass)::int4 as updated, pg_stat_get_xact_tuples_hot_updated('issues'::regclass)::int4 as hot`.execute(
          trx,
        )
      ).rows[0] ?? { updated: 0, hot: 0 };
    const before = await counts();
    for (let i = first; i < first + 6; i++) {
      await storePreparedBatches(trx, [prepareBatch({ appKey, events: [event(i)], receivedAt: now + i })]);
      await foldAll(trx);
    }
    const after = await counts();
    return { updated: after.updated - before.updated, hot: after.hot - before.hot };
  });
}

describe('migration 0016: HOT updates of issues', () => {
  it('updates an issue row in place for every later statement, until migration 0024', async () => {
    // The write statement is today's, which needs today's tables: the schema before 0024 is the latest one less
    // 0024, by its own down.
    const listIndex = migrations['2026_11_27_0024_issues_list_index'] as Migration;
    await migrateToLatest(db);
    await listIndex.down?.(db);
    await insertUserAndApp(db, `user_hot${suffix}`, appKey, { publicKey: 'd'.repeat(32) });
    // The first statement inserts the issue; each fold after a statement updates it (and the last seen time) in place.
    expect(await statementsFolded(0)).toEqual({ updated: 6, hot: 6 });
    // The list's index covers the counts and seen times: each fold's update of the issue adds index entries.
    await listIndex.up(db);
    expect(await statementsFolded(6)).toEqual({ updated: 6, hot: 0 });
  });
});
