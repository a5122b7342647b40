// Group commit against a real database: a fresh one in the embedded cluster, or PostgreSQL with TEST_DATABASE_URL.
import type { StoredEvent } from '@collector/domain';
import { describe, expect, it } from 'vitest';
import { EventWriter } from './event-writer';
import { openWritePathDatabase } from './write-path/testing';

const { db, newAccount, appTotals } = await openWritePathDatabase('writer');
const { newApp } = await newAccount();

const now = Date.now();
const event = (appKey: string, id: string, extra: Partial<StoredEvent> = {}): StoredEvent => ({
  eventId: `evt_${id}`,
  appKey,
  type: 'error',
  timestamp: now,
  fingerprint: 'js:group',
  message: 'boom',
  anonymousId: `anon_${id}`,
  ...extra,
});

describe('EventWriter', () => {
  it('merges batches that arrive while a write is in flight, and answers each with its own counts', async () => {
    const one = await newApp();
    const two = await newApp();
    const writer = new EventWriter(db, { concurrency: 1 });
    const writes = Array.from({ length: 20 }, (_, i) =>
      writer.write({ appKey: i % 2 ? one : two, events: [event(i % 2 ? one : two, `b${i}`)], receivedAt: now }),
    );
    // One statement in flight, the other 19 batches wait to be merged into the next.
    expect(writer.waiting).toBe(19);
    const results = await Promise.all(writes);
    expect(results).toMatchObject(Array.from({ length: 20 }, () => ({ stored: 1, duplicates: 0 })));
    for (const appKey of [one, two]) {
      expect(await appTotals(appKey)).toMatchObject({ events: 10, errors: 10, issues: 1, users: 10 });
      const issue = await db
        .selectFrom('issues_live')
        .selectAll()
        .where('app_key', '=', appKey)
        .executeTakeFirstOrThrow();
      expect(issue).toMatchObject({ event_count: 10, user_count: 10 });
    }
  });

  it('starts a statement beside the one in flight only once overlapAt events wait', async () => {
    const appKey = await newApp();
    const writer = new EventWriter(db, { concurrency: 2, overlapAt: 100 });
    const single = (i: number) => writer.write({ appKey, events: [event(appKey, `o${i}`)], receivedAt: now });
    const writes = Array.from({ length: 20 }, (_, i) => single(i));
    // One statement in flight; 19 one-event batches are fewer than 100 events: they wait for it, not beside it.
    expect(writer.waiting).toBe(19);
    const large = writer.write({
      appKey,
      events: Array.from({ length: 81 }, (_, i) => event(appKey, `large${i}`)),
      receivedAt: now,
    });
    // 100 events now wait: a second statement takes them all at once.
    expect(writer.waiting).toBe(0);
    expect(await Promise.all(writes)).toMatchObject(Array.from({ length: 20 }, () => ({ stored: 1 })));
    expect(await large).toMatchObject({ stored: 81, duplicates: 0 });
    expect((await appTotals(appKey)).events).toBe(101);
  });

  it('stores an eventId sent by two batches of one group once, for the batch that came first', async () => {
    const appKey = await newApp();
    const writer = new EventWriter(db, { concurrency: 1 });
    const blocker = writer.write({ appKey, events: [event(appKey, 'first')], receivedAt: now });
    const a = writer.write({
      appKey,
      events: [event(appKey, 'shared', { message: 'from a' }), event(appKey, 'a-only')],
      receivedAt: now,
    });
    const b = writer.write({ appKey, events: [event(appKey, 'shared', { message: 'from b' })], receivedAt: now });
    expect(await blocker).toMatchObject({ stored: 1, duplicates: 0 });
    expect(await a).toMatchObject({ stored: 2, duplicates: 0 });
    expect(await b).toMatchObject({ stored: 0, duplicates: 1 });
    const stored = await db
      .selectFrom('events')
      .select(['payload'])
      .where('app_key', '=', appKey)
      .where('event_id', '=', 'evt_shared')
      .execute();
    expect(stored.map((row) => row.payload.message)).toEqual(['from a']);
    expect((await appTotals(appKey)).events).toBe(3);
  });

  it('keeps counters exact under concurrent writers with overlapping retries', async () => {
    const appKey = await newApp();
    const writer = new EventWriter(db, { concurrency: 3, maxEventsPerWrite: 120, overlapAt: 1 });
    const ids = Array.from({ length: 300 }, (_, i) => `c${i}`);
    // Every event is sent twice, in different batches, with three statements running at once.
    const batches = [...ids, ...ids.slice().reverse()].reduce<string[][]>((all, id, i) => {
      if (i % 50 === 0) all.push([]);
      all.at(-1)?.push(id);
      return all;
    }, []);
    const results = await Promise.all(
      batches.map((batch) =>
        writer.write({
          appKey,
          events: batch.map((id, i) =>
            event(appKey, id, { fingerprint: `js:f${i % 7}`, anonymousId: `anon_${id.length % 5}` }),
          ),
          receivedAt: now,
        }),
      ),
    );
    expect(results.reduce((sum, result) => sum + result.stored, 0)).toBe(300);
    expect(results.reduce((sum, result) => sum + result.duplicates, 0)).toBe(300);
    const totals = await appTotals(appKey);
    const issues = await db.selectFrom('issues_live').select(['event_count']).where('app_key', '=', appKey).execute();
    const hourly = await db.selectFrom('app_hourly').select(['events']).where('app_key', '=', appKey).execute();
    expect(totals.events).toBe(300);
    expect(totals.issues).toBe(issues.length);
    expect(issues.reduce((sum, issue) => sum + issue.event_count, 0)).toBe(300);
    expect(hourly.reduce((sum, hour) => sum + hour.events, 0)).toBe(300);
  });
});
