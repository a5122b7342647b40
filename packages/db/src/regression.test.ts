// Regressions decided in the write path's statement, against a real database (embedded, or PostgreSQL with
// TEST_DATABASE_URL): what the statement reports as created and reopened, exactly once under concurrent writers.
import type { StoredEvent } from '@collector/domain';
import { afterAll, describe, expect, it } from 'vitest';
import { insertApp } from './apps';
import { openDatabase } from './connection';
import { EventWriter } from './event-writer';
import { storeBatches } from './ingest';
import { setIssueStatus } from './issues';
import { migrateToLatest } from './migrate';

const database = await openDatabase({ url: process.env.TEST_DATABASE_URL, dataDir: 'memory://' });
await migrateToLatest(database.db);
afterAll(() => database.close());

const suffix = Math.random().toString(36).slice(2, 10);
const userId = `user_regression${suffix}`;
await database.db.insertInto('users').values({ id: userId, email: `${userId}@example.com`, password_hash: '-', created_at: 0 }).execute();

async function newApp(name: string) {
  const appKey = `web_${name}${suffix}${Math.random().toString(36).slice(2, 8)}`;
  await insertApp(database.db, { app_key: appKey, user_id: userId, name, type: 'web', created_at: 0 });
  return appKey;
}

const now = Date.now();
let sequence = 0;
const event = (appKey: string, extra: Partial<StoredEvent> = {}): StoredEvent => ({
  eventId: `evt_${(sequence += 1)}_${suffix}`,
  appKey,
  type: 'error',
  timestamp: now,
  fingerprint: 'js:group',
  message: 'boom',
  ...extra,
});

const issueRow = (appKey: string, fingerprint = 'js:group') =>
  database.db.selectFrom('issues').selectAll().where('app_key', '=', appKey).where('fingerprint', '=', fingerprint).executeTakeFirstOrThrow();

describe('the write path’s issue changes', () => {
  it('reports a new issue as created, then a regression once the issue is resolved, and nothing for an ignored one', async () => {
    const appKey = await newApp('changes');
    const [first] = await storeBatches(database.db, [{ appKey, events: [event(appKey)], receivedAt: now }]);
    expect(first?.issueChanges).toEqual([{ appKey, fingerprint: 'js:group', created: true, regressed: false }]);
    const [again] = await storeBatches(database.db, [{ appKey, events: [event(appKey)], receivedAt: now }]);
    expect(again?.issueChanges).toEqual([]);

    await setIssueStatus(database.db, { userId, appKey, fingerprint: 'js:group', status: 'resolved', now });
    const [reopening] = await storeBatches(database.db, [{ appKey, events: [event(appKey)], receivedAt: now + 5 }]);
    expect(reopening?.issueChanges).toEqual([{ appKey, fingerprint: 'js:group', created: false, regressed: true }]);
    expect(await issueRow(appKey)).toMatchObject({ status: 'unresolved', regressed_at: now + 5, status_changed_at: now + 5, event_count: 3 });

    await setIssueStatus(database.db, { userId, appKey, fingerprint: 'js:group', status: 'ignored', now: now + 6 });
    const [ignored] = await storeBatches(database.db, [{ appKey, events: [event(appKey)], receivedAt: now + 7 }]);
    expect(ignored?.issueChanges).toEqual([]);
    expect(await issueRow(appKey)).toMatchObject({ status: 'ignored', regressed_at: now + 5, status_changed_at: now + 6, event_count: 4 });
  });

  it('reopens a resolved issue exactly once when concurrent statements bring it events', async () => {
    const appKey = await newApp('concurrent');
    await storeBatches(database.db, [{ appKey, events: [event(appKey)], receivedAt: now }]);
    for (let round = 0; round < 5; round++) {
      await setIssueStatus(database.db, { userId, appKey, fingerprint: 'js:group', status: 'resolved', now });
      // Separate writers, so on PostgreSQL the statements run at once on separate connections and meet on the row lock.
      const writers = Array.from({ length: 6 }, () => new EventWriter(database.db, { concurrency: 1 }));
      const results = await Promise.all(
        writers.map((writer, i) => writer.write({ appKey, events: [event(appKey), event(appKey)], receivedAt: now + 100 * round + i })),
      );
      const regressions = results.flatMap((result) => result.issueChanges).filter((change) => change.regressed);
      expect(regressions).toHaveLength(1);
      const row = await issueRow(appKey);
      expect(row.status).toBe('unresolved');
      expect(row.regressed_at).toBe(row.status_changed_at);
      expect(row.event_count).toBe(1 + (round + 1) * 12);
    }
  });

  it('keeps the culprit of the first event, and the level and release of the latest', async () => {
    const appKey = await newApp('fields');
    await storeBatches(database.db, [
      {
        appKey,
        events: [
          event(appKey, { timestamp: now - 2000, stack: 'Error: boom\n    at first (/app/first.js:1:1)', level: 'warning', release: '1.0.0' }),
          event(appKey, { timestamp: now - 1000, stack: 'Error: boom\n    at second (/app/second.js:1:1)', level: 'fatal', release: '1.1.0' }),
        ],
        receivedAt: now,
      },
    ]);
    expect(await issueRow(appKey)).toMatchObject({ culprit: 'first (/app/first.js)', level: 'fatal', last_release: '1.1.0', type: 'error' });
    // An older event (late) changes neither; a newer one without a release keeps the release and takes the default level.
    await storeBatches(database.db, [{ appKey, events: [event(appKey, { timestamp: now - 5000, level: 'debug', release: '0.9.0' })], receivedAt: now }]);
    expect(await issueRow(appKey)).toMatchObject({ level: 'fatal', last_release: '1.1.0', first_seen_at: now - 5000 });
    await storeBatches(database.db, [{ appKey, events: [event(appKey, { timestamp: now })], receivedAt: now }]);
    expect(await issueRow(appKey)).toMatchObject({ level: 'error', last_release: '1.1.0' });
    const facets = await database.db.selectFrom('issue_facets').select(['facet', 'value']).where('app_key', '=', appKey).orderBy('value').execute();
    expect(facets).toEqual([
      { facet: 'release', value: '0.9.0' },
      { facet: 'release', value: '1.0.0' },
      { facet: 'release', value: '1.1.0' },
    ]);
  });
});
