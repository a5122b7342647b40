// The group rule without a database: a group is the longest run of batches that repeats no (app, eventId) and, past
// its first batch, stays within the events allowed; each key's batch is its position in the group.
import type { StoredEvent } from '@collector/domain';
import { describe, expect, it } from 'vitest';
import { appKeyed } from '../keys';
import { nextGroup, type PreparedBatch, prepareBatch } from './batch';

const event = (appKey: string, eventId: string): StoredEvent => ({
  eventId,
  appKey,
  type: 'error',
  timestamp: 1,
  fingerprint: 'js:f',
  message: 'boom',
});
const prepared = (appKey: string, ...ids: string[]) =>
  prepareBatch({ appKey, events: ids.map((id) => event(appKey, id)), receivedAt: 1 });
const itself = (batch: PreparedBatch) => batch;

describe('the group rule', () => {
  it('keeps a batch’s first copy of an eventId, and counts every copy sent', () => {
    const batch = prepared('web_a', 'evt_1', 'evt_2', 'evt_1');
    expect(batch.keys).toEqual([appKeyed('web_a', 'evt_1'), appKeyed('web_a', 'evt_2')]);
    expect(batch.sent).toBe(3);
    expect(batch.rows.map((row) => (JSON.parse(row) as { event_id: string }).event_id)).toEqual(['evt_1', 'evt_2']);
  });

  it('ends a group before a batch that repeats an eventId of the same app, and goes on from there', () => {
    const batches = [
      prepared('web_a', 'evt_1'),
      prepared('web_b', 'evt_1'),
      prepared('web_a', 'evt_2', 'evt_1'),
      prepared('web_a', 'evt_3'),
    ];
    const first = nextGroup(batches, 0, itself);
    expect(first.size).toBe(2);
    expect(first.owner).toEqual(
      new Map([
        [appKeyed('web_a', 'evt_1'), 0],
        [appKeyed('web_b', 'evt_1'), 1],
      ]),
    );
    const second = nextGroup(batches, 2, itself);
    expect(second.size).toBe(2);
    expect(second.owner.get(appKeyed('web_a', 'evt_3'))).toBe(1);
  });

  it('holds at most maxEvents past its first batch, which goes alone when larger', () => {
    const batches = [prepared('web_a', 'evt_1', 'evt_2', 'evt_3'), prepared('web_a', 'evt_4'), prepared('web_a')];
    expect(nextGroup(batches, 0, itself, 2).size).toBe(1);
    expect(nextGroup(batches, 1, itself, 2).size).toBe(2);
    expect(nextGroup(batches, 0, itself, 4).size).toBe(3);
    expect(nextGroup(batches, 3, itself).size).toBe(0);
  });
});
