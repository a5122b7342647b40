// The write path's entry: prepared batches in, one statement per group out. The statement (write-path/statement.ts)
// stores the events of one or many batches (of any apps) and moves every counter they touch, each in its own named
// part: write-path/events.ts, distinct-users.ts, issues.ts, activity.ts, totals.ts, outcomes.ts and alerts.ts. One
// round trip, one commit. EventWriter merges concurrent batches into such statements (group commit) and answers each
// batch once its statement has committed.
import { HOUR, limits } from '@collector/domain';
import type { Kysely } from 'kysely';
import { JsonbArray } from './jsonb-array';
import { appKeyed } from './keys';
import type { Database } from './schema';
import { nextGroup, type PreparedBatch } from './write-path/batch';
import { receivedRows } from './write-path/outcomes';
import { type StatementRow, storeStatement } from './write-path/statement';

export { type Batch, type PreparedBatch, prepareBatch } from './write-path/batch';

export interface StoreResult {
  /** Events written by this batch. */
  stored: number;
  /**
   * Events sent but not stored: their eventId was stored already (by an earlier or concurrent statement, or for an
   * earlier batch of the same storePreparedBatches call), or came earlier in this batch; every copy counted.
   */
  duplicates: number;
  /** Issues that this batch's statement created or reopened and this batch stored events of. */
  issueChanges: IssueChange[];
}

/** An issue the statement created, or reopened because it was resolved (a regression): see write-path/issues.ts. */
export interface IssueChange {
  appKey: string;
  fingerprint: string;
  created: boolean;
  regressed: boolean;
}

export interface StoreOptions {
  /** The (issue, user) pairs a statement may claim: issueUserClaims of the statements run at once (default: one). */
  issueUserClaims?: number | undefined;
}

const itself = (batch: PreparedBatch): PreparedBatch => batch;

/**
 * Stores several batches; each batch learns how many of its events were new. One statement for them all, unless a
 * batch repeats an eventId of an earlier batch of the same app (the group rule, write-path/batch.ts): that batch and
 * those after it go to a following statement (rare: a retry racing its first attempt), where the earlier copy is
 * already stored and its own is told a duplicate.
 */
export async function storePreparedBatches(
  db: Kysely<Database>,
  batches: readonly PreparedBatch[],
  options: StoreOptions = {},
): Promise<StoreResult[]> {
  const results: StoreResult[] = [];
  for (let from = 0; from < batches.length; ) {
    const { size, owner } = nextGroup(batches, from, itself);
    results.push(...(await storeGroup(db, batches.slice(from, from + size), owner, options)));
    from += size;
  }
  return results;
}

/** One statement for batches whose (app, eventId) pairs are all distinct; `owner` tells each pair's batch. */
async function storeGroup(
  db: Kysely<Database>,
  batches: readonly PreparedBatch[],
  owner: ReadonlyMap<string, number>,
  options: StoreOptions,
): Promise<StoreResult[]> {
  const rows = batches.flatMap((batch) => batch.rows);
  const stored = batches.map(() => 0);
  const issueChanges = batches.map((): IssueChange[] => []);
  if (rows.length > 0) {
    // Hour lists keep what any event still to come can need: none is older than maxEventAgeMs when received (a margin
    // of two days covers batches waiting in a queue and clocks that disagree).
    const keepFrom =
      Math.floor((Math.min(...batches.map((batch) => batch.receivedAt)) - limits.maxEventAgeMs) / HOUR) - 48;
    const { rows: answer } = await storeStatement(
      new JsonbArray(rows),
      JSON.stringify(receivedRows(batches)),
      keepFrom,
      options.issueUserClaims,
    ).execute(db);
    // Which batches stored events of each issue, to tell them of its change.
    const batchesOfIssue = new Map<string, Set<number>>();
    const changes: StatementRow[] = [];
    for (const row of answer) {
      if (row.event_id === null) {
        changes.push(row);
        continue;
      }
      const index = owner.get(appKeyed(row.app_key, row.event_id));
      if (index === undefined) continue;
      stored[index] = (stored[index] ?? 0) + 1;
      const issueKey = appKeyed(row.app_key, row.fingerprint);
      let indexes = batchesOfIssue.get(issueKey);
      if (!indexes) {
        indexes = new Set();
        batchesOfIssue.set(issueKey, indexes);
      }
      indexes.add(index);
    }
    for (const change of changes) {
      for (const index of batchesOfIssue.get(appKeyed(change.app_key, change.fingerprint)) ?? []) {
        issueChanges[index]?.push({
          appKey: change.app_key,
          fingerprint: change.fingerprint,
          created: change.created === true,
          regressed: change.regressed === true,
        });
      }
    }
  }
  return batches.map((batch, index) => ({
    stored: stored[index] ?? 0,
    duplicates: batch.sent - (stored[index] ?? 0),
    issueChanges: issueChanges[index] ?? [],
  }));
}
