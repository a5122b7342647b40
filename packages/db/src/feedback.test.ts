// feedback.ts and the write statement's link against a real database: a feedback learns its event's issue whether it
// comes after the event (stored with it) or before (the event's statement sets it), keeps it once the event's payload
// is deleted, and one that lost the race with its event is still found on the issue by event id.
import type { FeedbackInput } from '@collector/domain';
import { describe, expect, it } from 'vitest';
import { listAppFeedback, listIssueFeedback, storeFeedback } from './feedback';
import { batch, errorEvent, openWritePathDatabase } from './write-path/testing';

const { db, newAccount, store } = await openWritePathDatabase('feedback');
const { newApp } = await newAccount();

const report = (eventId: string | null, message: string): FeedbackInput => ({
  kind: 'user_report',
  sourceId: `${message}-${eventId}`,
  eventId,
  name: null,
  email: null,
  message,
  url: null,
});

const issueList = (appKey: string, fingerprint: string) =>
  listIssueFeedback(db, { appKey, fingerprint, limit: 10 }).then((rows) => rows.map((row) => row.message));
const linksOf = async (appKey: string) =>
  Object.fromEntries((await listAppFeedback(db, { appKey, limit: 10 })).map((row) => [row.message, row.fingerprint]));

describe('feedback', () => {
  it('is linked to its event’s issue whichever comes first, and stays linked once the payload is deleted', async () => {
    const appKey = await newApp();
    await storeFeedback(db, appKey, [report('evt_late', 'before its event')], Date.now());
    await store(batch(appKey, [errorEvent(appKey, 'evt_early', { fingerprint: 'Error:a' })]));
    await store(batch(appKey, [errorEvent(appKey, 'evt_late', { fingerprint: 'Error:a' })]));
    await storeFeedback(
      db,
      appKey,
      [report('evt_early', 'after its event'), report(null, 'about the app')],
      Date.now(),
    );
    expect(await linksOf(appKey)).toEqual({
      'before its event': 'Error:a',
      'after its event': 'Error:a',
      'about the app': null,
    });
    await db.deleteFrom('events').where('app_key', '=', appKey).execute();
    expect(await issueList(appKey, 'Error:a')).toEqual(['after its event', 'before its event']);
    expect(await issueList(appKey, 'Error:b')).toEqual([]);
  });

  it('finds on its issue a feedback that missed its event’s commit (linked by neither), by the stored event', async () => {
    const appKey = await newApp();
    await store(batch(appKey, [errorEvent(appKey, 'evt_raced', { fingerprint: 'Error:r' })]));
    // What a feedback committed while its event's statement ran looks like: stored unlinked, the event stored too.
    await db
      .insertInto('feedback')
      .values({
        app_key: appKey,
        kind: 'user_report',
        source_id: 'raced',
        event_id: 'evt_raced',
        message: 'raced',
        received_at: 1,
      })
      .execute();
    expect(await issueList(appKey, 'Error:r')).toEqual(['raced']);
    expect(await issueList(appKey, 'Error:other')).toEqual([]);
  });

  it('keeps a retry once, and nothing for an app deleted meanwhile', async () => {
    const appKey = await newApp();
    await storeFeedback(db, appKey, [report('evt_x', 'once')], Date.now());
    await storeFeedback(db, appKey, [report('evt_x', 'once')], Date.now());
    expect(Object.keys(await linksOf(appKey))).toEqual(['once']);
    await storeFeedback(db, 'web_gone', [report('evt_x', 'nobody')], Date.now());
    expect(await db.selectFrom('feedback').select('id').where('app_key', '=', 'web_gone').execute()).toEqual([]);
  });
});
