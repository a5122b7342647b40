// A batch of events, the batch made ready for the write statement, and the group rule: which batches one statement
// can take together.
import type { StoredEvent } from '@collector/domain';
import { appKeyed } from '../keys';
import { eventRow } from './events';

export interface Batch {
  appKey: string;
  events: readonly StoredEvent[];
  receivedAt: number;
}

/**
 * A batch made ready for the statement: its rows serialised at once, each to its own JSON text. EventWriter prepares a
 * batch when it arrives, so the event objects die young instead of waiting in the queue for a statement (under load,
 * long enough for V8 to copy them into the old generation and collect them there, its costliest work in the profiles).
 * A text per row, not one per batch: a batch's rows as one text passed 128 KiB, where V8 gives every string fresh pages
 * of its own (JsonbArray says why that costs).
 */
export interface PreparedBatch {
  appKey: string;
  receivedAt: number;
  /** Events the batch sent, every copy of a repeated eventId counted. */
  sent: number;
  /** Its distinct events' keys (app and eventId, `appKeyed`), first copies in order: the events of `rows`. */
  keys: readonly string[];
  /** The statement's input row of each of those events, as JSON text. */
  rows: readonly string[];
}

export function prepareBatch(batch: Batch): PreparedBatch {
  const keys: string[] = [];
  const rows: string[] = [];
  const seen = new Set<string>();
  for (const event of batch.events) {
    // The first copy of an eventId in a batch is its row; a later one is a duplicate, as ON CONFLICT DO NOTHING would
    // tell it across statements (one statement's input must hold each id once).
    if (seen.has(event.eventId)) continue;
    seen.add(event.eventId);
    keys.push(appKeyed(batch.appKey, event.eventId));
    rows.push(JSON.stringify(eventRow(batch.appKey, event, batch.receivedAt)));
  }
  return { appKey: batch.appKey, receivedAt: batch.receivedAt, sent: batch.events.length, keys, rows };
}

/** The batches of one statement, and the batch (its position among them) of each of their keys. */
export interface Group {
  size: number;
  owner: Map<string, number>;
}

/**
 * The group rule, for EventWriter's queue and for storePreparedBatches alike: a statement's input holds each
 * (app, eventId) once. The next group is the longest run of `items` from `from` on that repeats no key and, past its
 * first batch, holds at most `maxEvents` events. A batch that repeats a key of an earlier one starts the following
 * group, whose statement finds the earlier copy stored and tells its own a duplicate.
 */
export function nextGroup<T>(
  items: readonly T[],
  from: number,
  batchOf: (item: T) => PreparedBatch,
  maxEvents = Number.POSITIVE_INFINITY,
): Group {
  const owner = new Map<string, number>();
  let size = 0;
  let events = 0;
  for (let i = from; i < items.length; i++) {
    const { keys } = batchOf(items[i] as T);
    if (size > 0 && (events + keys.length > maxEvents || keys.some((key) => owner.has(key)))) break;
    for (const key of keys) owner.set(key, size);
    size += 1;
    events += keys.length;
  }
  return { size, owner };
}
