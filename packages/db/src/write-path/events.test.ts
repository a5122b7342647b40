// events.ts against a real database: each (app, eventId) stored once, within a batch, across the batches of one
// statement and across statements; the first copy sent is the one kept, and a copy moves no counter.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { listIssueEvents } from '../issues';
import { JsonbArray } from '../jsonb-array';
import { prepareBatch } from './batch';
import { eventParts } from './events';
import { withParts } from './part';
import { batch, errorEvent, openWritePathDatabase, someHour } from './testing';

const { db, newAccount, store } = await openWritePathDatabase('events');
const { newApp } = await newAccount();

const storedMessages = async (appKey: string) =>
  (
    await db
      .selectFrom('events')
      .select(['event_id', 'payload'])
      .where('app_key', '=', appKey)
      .orderBy('event_id')
      .execute()
  ).map((row) => `${row.event_id}:${row.payload.message}`);

describe('write path: events', () => {
  it('stores a repeated eventId of one batch once, the first copy', async () => {
    const appKey = await newApp();
    const [result] = await store(
      batch(appKey, [
        errorEvent(appKey, 'evt_a', { message: 'first' }),
        errorEvent(appKey, 'evt_a', { message: 'second' }),
      ]),
    );
    expect(result).toMatchObject({ stored: 1, duplicates: 1 });
    expect(await storedMessages(appKey)).toEqual(['evt_a:first']);
  });

  it('gives an eventId sent by two batches of one statement to the batch that sent it first', async () => {
    const appKey = await newApp();
    const results = await store(
      batch(appKey, [errorEvent(appKey, 'evt_shared', { message: 'from one' }), errorEvent(appKey, 'evt_one')]),
      batch(appKey, [errorEvent(appKey, 'evt_shared', { message: 'from two' })]),
    );
    expect(results).toMatchObject([
      { stored: 2, duplicates: 0 },
      { stored: 0, duplicates: 1 },
    ]);
    expect(await storedMessages(appKey)).toEqual(['evt_one:boom', 'evt_shared:from one']);
  });

  it('keeps what was stored when a later statement sends the eventId again, and counts nothing twice', async () => {
    const appKey = await newApp();
    await store(batch(appKey, [errorEvent(appKey, 'evt_a', { message: 'original', anonymousId: 'anon_1' })]));
    const [again] = await store(
      batch(appKey, [
        errorEvent(appKey, 'evt_a', { message: 'retry', anonymousId: 'anon_2' }),
        errorEvent(appKey, 'evt_b'),
      ]),
    );
    expect(again).toMatchObject({ stored: 1, duplicates: 1 });
    expect(await storedMessages(appKey)).toEqual(['evt_a:original', 'evt_b:boom']);
    const totals = await db
      .selectFrom('app_totals')
      .selectAll()
      .where('app_key', '=', appKey)
      .executeTakeFirstOrThrow();
    expect(totals).toMatchObject({ events: 2, users: 1 });
    const issue = await db
      .selectFrom('issues_live')
      .selectAll()
      .where('app_key', '=', appKey)
      .executeTakeFirstOrThrow();
    expect(issue).toMatchObject({ event_count: 2, user_count: 1 });
  });

  it('keeps the same eventId of two apps apart', async () => {
    const [one, two] = [await newApp(), await newApp()];
    const results = await store(batch(one, [errorEvent(one, 'evt_same')]), batch(two, [errorEvent(two, 'evt_same')]));
    expect(results).toMatchObject([
      { stored: 1, duplicates: 0 },
      { stored: 1, duplicates: 0 },
    ]);
  });

  it('runs alone: its parts store the events and say which were new, touching no counter', async () => {
    const appKey = await newApp();
    const { rows } = prepareBatch(batch(appKey, [errorEvent(appKey, 'evt_x'), errorEvent(appKey, 'evt_y')]));
    const run = () =>
      withParts<{ event_id: string }>(eventParts, {
        reads: ['new_events'],
        query: sql`select event_id from new_events order by event_id`,
      })({ rows: new JsonbArray(rows), receivedJson: '[]', keepFrom: 0, claims: 64 }).execute(db);
    expect((await run()).rows.map((row) => row.event_id)).toEqual(['evt_x', 'evt_y']);
    expect((await run()).rows).toEqual([]);
    expect(await db.selectFrom('issues_live').select('fingerprint').where('app_key', '=', appKey).execute()).toEqual(
      [],
    );
  });

  it("stores a Sentry event's stack text once, as its frames, and shows it written again", async () => {
    const appKey = await newApp();
    const frame = (fn: string) => ({ function: fn, file: 'app.js', line: 1, column: 2 });
    const stack =
      'SaveError: could not save\n    at save (app.js:1:2)\nCaused by: IOError: disk full\n    at write (app.js:1:2)';
    const chain = [
      { type: 'IOError', value: 'disk full', frames: [frame('write')] },
      { type: 'SaveError', value: 'could not save', frames: [frame('save')] },
    ];
    await store(
      batch(appKey, [
        errorEvent(appKey, 'evt_chain', {
          errorType: 'SaveError',
          message: 'could not save',
          stack,
          exceptions: chain,
        }),
        // A client's own text beside frames it does not match is kept as sent.
        errorEvent(appKey, 'evt_own', { errorType: 'SaveError', stack: 'its own text', exceptions: chain }),
      ]),
    );
    const payloads = await db
      .selectFrom('events')
      .select(['event_id', 'payload'])
      .where('app_key', '=', appKey)
      .orderBy('event_id')
      .execute();
    expect(payloads.map((row) => [row.event_id, row.payload.stack, row.payload.stackFromFrames])).toEqual([
      ['evt_chain', undefined, true],
      ['evt_own', 'its own text', undefined],
    ]);
    const { events } = await listIssueEvents(db, {
      appKey,
      fingerprint: 'TypeError:cart',
      firstSeenAt: someHour,
      lastSeenAt: someHour,
      limit: 10,
    });
    const shown = new Map(events.map((event) => [event.eventId, event]));
    expect(shown.get('evt_chain')).toMatchObject({ stack, frames: [frame('save')] });
    expect(shown.get('evt_chain')).not.toHaveProperty('stackFromFrames');
    expect(shown.get('evt_own')?.stack).toBe('its own text');
  });
});
