// The write path's entry: batches in, one statement per group out. The statement (write-path/statement.ts) stores the
// events of one or many batches (of any apps) and moves every counter they touch, each in its own named part:
// write-path/events.ts, issues.ts, distinct-users.ts, activity.ts, totals.ts and outcomes.ts. One round trip, one commit.
// EventWriter merges concurrent batches into such statements (group commit) and answers each batch once its statement
// has committed.
import { HOUR, limits, type StoredEvent } from '@collector/domain';
import type { Kysely } from 'kysely';
import type { Database } from './schema';
import { eventRow } from './write-path/events';
import { receivedRows } from './write-path/outcomes';
import { type StatementRow, storeStatement } from './write-path/statement';

export interface StoreResult {
  /** Events written by this batch. */
  stored: number;
  /** Events whose eventId was already stored (before, or earlier in the same batch or group). */
  duplicates: number;
  /** Issues that this batch's stored events created or reopened (a group's change is told to each batch that took part). */
  issueChanges: IssueChange[];
}

/** An issue the statement created, or reopened because it was resolved (a regression): see write-path/issues.ts. */
export interface IssueChange {
  appKey: string;
  fingerprint: string;
  created: boolean;
  regressed: boolean;
}

export interface Batch {
  appKey: string;
  events: readonly StoredEvent[];
  receivedAt: number;
}

/**
 * A batch made ready for the statement: each event's row serialised at once. EventWriter prepares a batch when it
 * arrives, so the event objects die young instead of waiting in the queue for a statement (under load, long enough
 * for V8 to copy them into the old generation and collect them there, its costliest work in the profiles).
 */
export interface PreparedBatch {
  appKey: string;
  receivedAt: number;
  eventIds: readonly string[];
  /** Each event's row of the statement's input, as JSON. */
  rows: readonly string[];
}

export function prepareBatch(batch: Batch): PreparedBatch {
  const eventIds: string[] = [];
  const rows: string[] = [];
  for (const event of batch.events) {
    eventIds.push(event.eventId);
    rows.push(JSON.stringify(eventRow(batch.appKey, event, batch.receivedAt)));
  }
  return { appKey: batch.appKey, receivedAt: batch.receivedAt, eventIds, rows };
}

/** Stores several batches in one statement; each batch learns how many of its events were new. */
export async function storePreparedBatches(db: Kysely<Database>, batches: readonly PreparedBatch[]): Promise<StoreResult[]> {
  // The first copy of an (app, eventId) wins, across the batches of the group as within one, as ON CONFLICT DO NOTHING
  // does across statements; it belongs to the batch that sent it first.
  const owner = new Map<string, number>();
  const rows: string[] = [];
  batches.forEach((batch, index) => {
    batch.eventIds.forEach((eventId, i) => {
      const key = `${batch.appKey}\u0000${eventId}`;
      if (owner.has(key)) return;
      owner.set(key, index);
      rows.push(batch.rows[i] as string);
    });
  });
  const stored = batches.map(() => 0);
  const issueChanges = batches.map((): IssueChange[] => []);
  if (rows.length > 0) {
    // Hour lists keep what any event still to come can need: none is older than maxEventAgeMs when received (a margin
    // of two days covers batches waiting in a queue and clocks that disagree).
    const keepFrom = Math.floor((Math.min(...batches.map((batch) => batch.receivedAt)) - limits.maxEventAgeMs) / HOUR) - 48;
    const { rows: answer } = await storeStatement(`[${rows.join(',')}]`, JSON.stringify(receivedRows(batches)), keepFrom).execute(db);
    // Which batches stored events of each issue, to tell them of its change.
    const batchesOfIssue = new Map<string, Set<number>>();
    const changes: StatementRow[] = [];
    for (const row of answer) {
      if (row.event_id === null) {
        changes.push(row);
        continue;
      }
      const index = owner.get(`${row.app_key}\u0000${row.event_id}`);
      if (index === undefined) continue;
      stored[index] = (stored[index] ?? 0) + 1;
      const issueKey = `${row.app_key}\u0000${row.fingerprint}`;
      let indexes = batchesOfIssue.get(issueKey);
      if (!indexes) batchesOfIssue.set(issueKey, (indexes = new Set()));
      indexes.add(index);
    }
    for (const change of changes) {
      for (const index of batchesOfIssue.get(`${change.app_key}\u0000${change.fingerprint}`) ?? []) {
        issueChanges[index]?.push({ appKey: change.app_key, fingerprint: change.fingerprint, created: change.created === true, regressed: change.regressed === true });
      }
    }
  }
  return batches.map((batch, index) => ({
    stored: stored[index] ?? 0,
    duplicates: batch.eventIds.length - (stored[index] ?? 0),
    issueChanges: issueChanges[index] ?? [],
  }));
}
