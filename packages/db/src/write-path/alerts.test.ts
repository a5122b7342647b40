// alerts.ts against a real database: the outbox rows the write statement adds for new issues, and the counter fold
// for spikes, one per (rule, issue, trigger), none for duplicates or other apps, and a spike once per window even when
// statements on the same issue run at once.
import { describe, expect, it } from 'vitest';
import { foldCounters } from '../counters';
import type { Batch } from './batch';
import { errorEvent, openWritePathDatabase } from './testing';

const { db, newAccount, store: storeOnly } = await openWritePathDatabase('alerts');
/** Stores, then folds (waiting for a fold of another test's to end): spikes are decided by the fold. */
const store = async (...batches: Batch[]) => {
  const results = await storeOnly(...batches);
  await foldCounters(db, { wait: true });
  return results;
};
const { newApp } = await newAccount();
const MINUTE = 60_000;

let sequence = 0;
async function addRule(
  appKey: string,
  trigger: 'new_issue' | 'regression' | 'spike',
  spike?: { events: number; minutes: number },
) {
  const id = `alert_${appKey}_${++sequence}`;
  await db
    .insertInto('alerts')
    .values({
      id,
      app_key: appKey,
      trigger,
      spike_events: spike?.events ?? null,
      spike_minutes: spike?.minutes ?? null,
      channel: JSON.stringify({ type: 'webhook', url: 'https://hooks.example.com/' }),
      secret: 's',
      created_at: 0,
    })
    .execute();
  return id;
}

const outbox = (appKey: string) =>
  db
    .selectFrom('alert_deliveries')
    .select(['alert_id', 'fingerprint', 'trigger', 'status', 'created_at', 'next_attempt_at'])
    .where('app_key', '=', appKey)
    .orderBy('alert_id')
    .orderBy('fingerprint')
    .execute();

/** Events of one issue received at `receivedAt`. */
const received = (appKey: string, receivedAt: number, ids: string[], fingerprint = 'TypeError:cart'): Batch => ({
  appKey,
  receivedAt,
  events: ids.map((id) => errorEvent(appKey, id, { fingerprint })),
});

describe('write path: alerts', () => {
  it('queues one delivery per new-issue rule and new issue, due at once, and none for a known issue or a duplicate', async () => {
    const appKey = await newApp();
    const other = await newApp();
    const first = await addRule(appKey, 'new_issue');
    const second = await addRule(appKey, 'new_issue');
    await addRule(appKey, 'regression');
    await addRule(other, 'new_issue');
    const now = Date.now();
    await store(received(appKey, now, ['evt_1', 'evt_2']), received(appKey, now, ['evt_3'], 'RangeError:x'));
    await store(received(appKey, now + 1, ['evt_4', 'evt_1']));
    expect(await outbox(appKey)).toEqual(
      [first, second].flatMap((alertId) =>
        ['RangeError:x', 'TypeError:cart'].map((fingerprint) => ({
          alert_id: alertId,
          fingerprint,
          trigger: 'new_issue',
          status: 'pending',
          created_at: now,
          next_attempt_at: now,
        })),
      ),
    );
    expect(await outbox(other)).toEqual([]);
  });

  it('keeps per-minute counts only for apps with a spike rule', async () => {
    const appKey = await newApp();
    await addRule(appKey, 'new_issue');
    await store(received(appKey, Date.now(), ['evt_1', 'evt_2']));
    await storeOnly(received(appKey, Date.now(), ['evt_3']));
    expect(await db.selectFrom('issue_minute_deltas').selectAll().where('app_key', '=', appKey).execute()).toEqual([]);
    expect(await db.selectFrom('issue_minutes').selectAll().where('app_key', '=', appKey).execute()).toEqual([]);
  });

  it('fires a spike when the window holds enough events, once per window, and again in the next window', async () => {
    const appKey = await newApp();
    const rule = await addRule(appKey, 'spike', { events: 3, minutes: 5 });
    const start = Math.floor(Date.now() / MINUTE) * MINUTE;
    await store(received(appKey, start, ['evt_1', 'evt_2']));
    expect(await outbox(appKey)).toEqual([]);
    // Four minutes later the first two are still in the window: the third event fires it.
    await store(received(appKey, start + 4 * MINUTE, ['evt_3']));
    expect(await outbox(appKey)).toEqual([
      expect.objectContaining({ alert_id: rule, trigger: 'spike', created_at: start + 4 * MINUTE }),
    ]);
    await store(received(appKey, start + 5 * MINUTE, ['evt_4', 'evt_5', 'evt_6']));
    expect(await outbox(appKey)).toHaveLength(1);
    // The window after the alert's has passed: enough events fire it again.
    await store(received(appKey, start + 9 * MINUTE, ['evt_7', 'evt_8', 'evt_9']));
    expect(await outbox(appKey)).toHaveLength(2);
    // Events that fell out of the window do not count: two now and one six minutes ago are not three.
    const quiet = await newApp();
    await addRule(quiet, 'spike', { events: 3, minutes: 5 });
    await store(received(quiet, start, ['evt_1']));
    await store(received(quiet, start + 6 * MINUTE, ['evt_2', 'evt_3']));
    expect(await outbox(quiet)).toEqual([]);
  });

  it('fires a spike once when statements on the same issue run at once', async () => {
    const appKey = await newApp();
    await addRule(appKey, 'spike', { events: 2, minutes: 10 });
    const now = Date.now();
    await store(received(appKey, now, ['evt_0']));
    await Promise.all(Array.from({ length: 6 }, (_, i) => store(received(appKey, now, [`evt_${i + 1}`]))));
    await foldCounters(db, { wait: true });
    expect((await outbox(appKey)).filter((row) => row.trigger === 'spike')).toHaveLength(1);
  });
});
