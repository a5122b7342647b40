// What the write path's tests share (tests only): a migrated database, the embedded one or PostgreSQL with
// TEST_DATABASE_URL; an account with fresh apps; and a store call made as EventWriter makes it, one group at a time.
import { randomBytes } from 'node:crypto';
import { HOUR, type StoredEvent } from '@collector/domain';
import { afterAll } from 'vitest';
import { emptyTestDatabaseUrl, testDatabaseUrl } from '../../test/database';
import { insertApp } from '../apps';
import { openDatabase } from '../connection';
import { type StoreResult, storePreparedBatches } from '../ingest';
import { migrateToLatest } from '../migrate';
import { type Batch, prepareBatch } from './batch';

export async function openWritePathDatabase(name: string, options: { ownDatabase?: boolean } = {}) {
  // ownDatabase: a database of the test's own even with TEST_DATABASE_URL, where every file shares one, for a test
  // that needs no other transaction beside it (a vacuum removes no row an open snapshot of its database may see).
  const url = options.ownDatabase ? await emptyTestDatabaseUrl() : await testDatabaseUrl();
  const database = await openDatabase({ url });
  await migrateToLatest(database.db);
  afterAll(() => database.close());
  const db = database.db;
  const suffix = Math.random().toString(36).slice(2, 10);

  /**
   * A new account in an organization of its own (or in `orgId`, another account's): its id, its organization's, and a
   * function that creates one more app of it there.
   */
  async function newAccount(options: { orgId?: string } = {}) {
    const userId = `user_${name}${suffix}${Math.random().toString(36).slice(2, 8)}`;
    await db
      .insertInto('users')
      .values({ id: userId, email: `${userId}@example.com`, password_hash: '-', created_at: 0 })
      .execute();
    const orgId = options.orgId ?? `org_${userId}`;
    if (!options.orgId)
      await db
        .insertInto('organizations')
        .values({ id: orgId, slug: orgId.replaceAll('_', '-').toLowerCase(), name, created_at: 0 })
        .execute();
    const newApp = async () => {
      const appKey = `web_${name}${Math.random().toString(36).slice(2, 10)}`;
      await insertApp(db, {
        app_key: appKey,
        org_id: orgId,
        slug: appKey.replaceAll('_', '-').toLowerCase(),
        user_id: userId,
        name,
        type: 'web',
        created_at: 0,
        public_key: randomBytes(16).toString('hex'),
      });
      return appKey;
    };
    return { userId, orgId, newApp };
  }

  /** Stores the batches as EventWriter stores a group: one statement, unless a batch repeats an earlier one's eventId. */
  const store = (...batches: Batch[]): Promise<StoreResult[]> => storePreparedBatches(db, batches.map(prepareBatch));

  /** The app's counters: its row of app_totals. */
  const appTotals = (appKey: string) =>
    db.selectFrom('app_totals').selectAll().where('app_key', '=', appKey).executeTakeFirstOrThrow();

  return { db, newAccount, store, appTotals };
}

/** A whole hour a few days back, so that events a few hours either side of it are all still taken. */
export const someHour = Math.floor(Date.now() / HOUR) * HOUR - 5 * 24 * HOUR;

export const errorEvent = (appKey: string, eventId: string, extra: Partial<StoredEvent> = {}): StoredEvent => ({
  eventId,
  appKey,
  type: 'error',
  timestamp: someHour,
  fingerprint: 'TypeError:cart',
  message: 'boom',
  ...extra,
});

export const batch = (appKey: string, events: StoredEvent[]): Batch => ({ appKey, events, receivedAt: Date.now() });
