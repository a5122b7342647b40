// outcomes.ts against a real database: per app and hour of receipt, the events a statement's batches sent split into
// accepted (stored now) and duplicate (every other copy), in the same commit as the events.
import { HOUR } from '@collector/domain';
import { describe, expect, it } from 'vitest';
import { batch, errorEvent, openWritePathDatabase } from './testing';

const { db, newAccount, store, appTotals } = await openWritePathDatabase('outcomes');
const { newApp } = await newAccount();

const outcomesOf = async (appKey: string) =>
  Object.fromEntries(
    (
      await db
        .selectFrom('outcomes')
        .select(['hour_start', 'reason', 'events'])
        .where('app_key', '=', appKey)
        .orderBy('hour_start')
        .orderBy('reason')
        .execute()
    ).map((row) => [`${row.hour_start}:${row.reason}`, row.events]),
  );

describe('write path: outcomes', () => {
  it('counts accepted and duplicate per app and hour of receipt, copies within and across statements included', async () => {
    const [one, two] = [await newApp(), await newApp()];
    const receivedAt = Math.floor(Date.now() / HOUR) * HOUR + 1000;
    const at = (appKey: string, ids: string[], hoursLater = 0) => ({
      ...batch(
        appKey,
        ids.map((id) => errorEvent(appKey, id)),
      ),
      receivedAt: receivedAt + hoursLater * HOUR,
    });
    // One statement: a repeat within a batch, one across its batches, and another app.
    await store(at(one, ['evt_a', 'evt_b', 'evt_a']), at(one, ['evt_b', 'evt_c']), at(two, ['evt_a']));
    // A later statement, an hour later: one retry, one new.
    await store(at(one, ['evt_c', 'evt_d'], 1));
    expect(await outcomesOf(one)).toEqual({
      [`${receivedAt - 1000}:accepted`]: 3,
      [`${receivedAt - 1000}:duplicate`]: 2,
      [`${receivedAt - 1000 + HOUR}:accepted`]: 1,
      [`${receivedAt - 1000 + HOUR}:duplicate`]: 1,
    });
    expect(await outcomesOf(two)).toEqual({ [`${receivedAt - 1000}:accepted`]: 1 });
  });

  it('counts a retry of an event whose payload was deleted as a duplicate: its id is still claimed', async () => {
    const appKey = await newApp();
    await store(batch(appKey, [errorEvent(appKey, 'evt_gone')]));
    await db.deleteFrom('events').where('app_key', '=', appKey).execute();
    const [again] = await store(batch(appKey, [errorEvent(appKey, 'evt_gone')]));
    expect(again).toMatchObject({ stored: 0, duplicates: 1 });
    expect(await db.selectFrom('events').select('event_id').where('app_key', '=', appKey).execute()).toEqual([]);
    expect((await appTotals(appKey)).events).toBe(1);
  });
});
