// issues.ts's triage against a real database (embedded, or PostgreSQL with TEST_DATABASE_URL): what the statement
// reports as created and reopened, exactly once under concurrent writers; culprit, level and release; facets.
import type { StoredEvent } from '@collector/domain';
import { describe, expect, it } from 'vitest';
import { EventWriter } from '../event-writer';
import { setIssueStatus } from '../issues';
import { openWritePathDatabase } from './testing';

const { db, newAccount, store } = await openWritePathDatabase('regression');
const { userId, newApp } = await newAccount();

const now = Date.now();
let sequence = 0;
const event = (appKey: string, extra: Partial<StoredEvent> = {}): StoredEvent => {
  sequence += 1;
  return {
    eventId: `evt_${sequence}`,
    appKey,
    type: 'error',
    timestamp: now,
    fingerprint: 'js:group',
    message: 'boom',
    ...extra,
  };
};
const issueRow = (appKey: string, fingerprint = 'js:group') =>
  db
    .selectFrom('issues_live')
    .selectAll()
    .where('app_key', '=', appKey)
    .where('fingerprint', '=', fingerprint)
    .executeTakeFirstOrThrow();

describe('the write path’s issue changes', () => {
  it('reports a new issue as created, then a regression once the issue is resolved, and nothing for an ignored one', async () => {
    const appKey = await newApp();
    const [first] = await store({ appKey, events: [event(appKey)], receivedAt: now });
    expect(first?.issueChanges).toEqual([{ appKey, fingerprint: 'js:group', created: true, regressed: false }]);
    const [again] = await store({ appKey, events: [event(appKey)], receivedAt: now });
    expect(again?.issueChanges).toEqual([]);

    await setIssueStatus(db, { userId, appKey, fingerprint: 'js:group', status: 'resolved', now });
    const [reopening] = await store({ appKey, events: [event(appKey)], receivedAt: now + 5 });
    expect(reopening?.issueChanges).toEqual([{ appKey, fingerprint: 'js:group', created: false, regressed: true }]);
    expect(await issueRow(appKey)).toMatchObject({
      status: 'unresolved',
      regressed_at: now + 5,
      status_changed_at: now + 5,
      event_count: 3,
    });

    await setIssueStatus(db, { userId, appKey, fingerprint: 'js:group', status: 'ignored', now: now + 6 });
    const [ignored] = await store({ appKey, events: [event(appKey)], receivedAt: now + 7 });
    expect(ignored?.issueChanges).toEqual([]);
    expect(await issueRow(appKey)).toMatchObject({
      status: 'ignored',
      regressed_at: now + 5,
      status_changed_at: now + 6,
      event_count: 4,
    });
  });

  it('reopens a resolved issue exactly once when concurrent statements bring it events', async () => {
    const appKey = await newApp();
    await store({ appKey, events: [event(appKey)], receivedAt: now });
    for (let round = 0; round < 5; round++) {
      await setIssueStatus(db, { userId, appKey, fingerprint: 'js:group', status: 'resolved', now });
      // Separate writers, so on PostgreSQL the statements run at once on separate connections and meet on the row lock.
      const writers = Array.from({ length: 6 }, () => new EventWriter(db, { concurrency: 1 }));
      const results = await Promise.all(
        writers.map((writer, i) =>
          writer.write({ appKey, events: [event(appKey), event(appKey)], receivedAt: now + 100 * round + i }),
        ),
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
    const appKey = await newApp();
    await store({
      appKey,
      events: [
        event(appKey, {
          timestamp: now - 2000,
          stack: 'Error: boom\n    at first (/app/first.js:1:1)',
          level: 'warning',
          release: '1.0.0',
        }),
        event(appKey, {
          timestamp: now - 1000,
          stack: 'Error: boom\n    at second (/app/second.js:1:1)',
          level: 'fatal',
          release: '1.1.0',
        }),
      ],
      receivedAt: now,
    });
    expect(await issueRow(appKey)).toMatchObject({
      culprit: 'first (/app/first.js)',
      level: 'fatal',
      last_release: '1.1.0',
      type: 'error',
    });
    // An older event (late) changes neither; a newer one without a release keeps the release and takes the default
    // level.
    await store({
      appKey,
      events: [event(appKey, { timestamp: now - 5000, level: 'debug', release: '0.9.0' })],
      receivedAt: now,
    });
    expect(await issueRow(appKey)).toMatchObject({ level: 'fatal', last_release: '1.1.0', first_seen_at: now - 5000 });
    await store({ appKey, events: [event(appKey, { timestamp: now })], receivedAt: now });
    expect(await issueRow(appKey)).toMatchObject({ level: 'error', last_release: '1.1.0' });
    const facets = await db
      .selectFrom('issue_facets')
      .select(['facet', 'value'])
      .where('app_key', '=', appKey)
      .where('facet', 'in', ['release', 'environment'])
      .orderBy('value')
      .execute();
    expect(facets).toEqual([
      { facet: 'release', value: '0.9.0' },
      { facet: 'release', value: '1.0.0' },
      { facet: 'release', value: '1.1.0' },
    ]);
  });
});
