// Group commit: batches that arrive while earlier writes are in flight are merged into one statement.
// Under light load a batch is written at once, alone (no timer, no added latency); under heavy load each
// statement carries many batches, so the statement's fixed cost (its ~40 parts: milliseconds however few its
// events) is paid once per group instead of once per request. Every batch is answered only after the statement
// holding it committed.
// When a statement fails because the database is unreachable, the batches queued behind it fail with it at once:
// sent on, each would wait out its own timeout against a dead database before its client heard anything.
import type { Kysely } from 'kysely';
import { classifyDatabaseError } from './database-errors';
import { type StoreOptions, type StoreResult, storePreparedBatches } from './ingest';
import type { Database } from './schema';
import { type Batch, nextGroup, type PreparedBatch, prepareBatch } from './write-path/batch';
import { issueUserClaims } from './write-path/distinct-users';

export interface EventWriterOptions {
  /** Statements in flight at once; more lets writes overlap, fewer merges more per statement. */
  concurrency?: number;
  /**
   * Events waiting before a statement starts beside one already in flight (1: at once). Below it they wait for the
   * statement in flight to end and go together: one-event requests (Sentry SDKs) then make groups of about the number
   * of connections instead of half of it, and pay the statement's fixed cost half as often.
   */
  overlapAt?: number;
  /** Upper bound on events per statement, unless one batch alone holds more (it is then written alone). */
  maxEventsPerWrite?: number;
  /**
   * Processes writing to the database at once, each with its own writer (WORKERS; default 1): their statements share
   * the (issue, user) pairs that statements may claim (write-path/distinct-users.ts).
   */
  processes?: number | undefined;
}

interface Pending {
  batch: PreparedBatch;
  resolve: (result: StoreResult) => void;
  reject: (error: unknown) => void;
}

// Two concurrent statements can still lock shared rows in different orders; PostgreSQL then aborts one (retryable).
const MAX_ATTEMPTS = 3;

const batchOf = (pending: Pending): PreparedBatch => pending.batch;

export class EventWriter {
  private readonly queue: Pending[] = [];
  private inFlight = 0;
  /** The distinct events of the queued batches. */
  private queuedEvents = 0;
  private readonly concurrency: number;
  private readonly overlapAt: number;
  private readonly maxEventsPerWrite: number;
  private readonly store: StoreOptions;

  constructor(
    private readonly db: Kysely<Database>,
    options: EventWriterOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 2;
    this.overlapAt = options.overlapAt ?? 100;
    this.maxEventsPerWrite = options.maxEventsPerWrite ?? 2000;
    this.store = { issueUserClaims: issueUserClaims((options.processes ?? 1) * this.concurrency) };
  }

  write(batch: Batch): Promise<StoreResult> {
    return new Promise((resolve, reject) => {
      const prepared = prepareBatch(batch);
      this.queue.push({ batch: prepared, resolve, reject });
      this.queuedEvents += prepared.keys.length;
      this.drain();
    });
  }

  /** Batches waiting for a statement (the tests read it). */
  get waiting(): number {
    return this.queue.length;
  }

  private drain(): void {
    while (
      this.inFlight < this.concurrency &&
      this.queue.length > 0 &&
      (this.inFlight === 0 || this.queuedEvents >= this.overlapAt)
    ) {
      // The group rule (nextGroup) makes the group one statement: storePreparedBatches, under the same rule, does not
      // split it, so a retry never repeats a statement that committed (and tells its events duplicates).
      const group = this.queue.splice(0, nextGroup(this.queue, 0, batchOf, this.maxEventsPerWrite).size);
      for (const pending of group) this.queuedEvents -= pending.batch.keys.length;
      this.inFlight += 1;
      void this.flush(group).finally(() => {
        this.inFlight -= 1;
        this.drain();
      });
    }
  }

  private async flush(group: Pending[]): Promise<void> {
    try {
      const results = await this.storeWithRetry(group.map((pending) => pending.batch));
      group.forEach((pending, index) => {
        pending.resolve(results[index] as StoreResult);
      });
    } catch (error) {
      const kind = classifyDatabaseError(error);
      if (kind === 'unavailable') {
        this.queuedEvents = 0;
        for (const pending of [...group, ...this.queue.splice(0)]) pending.reject(error);
        return;
      }
      if (group.length === 1 || kind !== 'input') {
        for (const pending of group) pending.reject(error);
        return;
      }
      // One batch's data broke the merged statement: write each alone so the others still land.
      await Promise.all(group.map((pending) => this.flush([pending])));
    }
  }

  private async storeWithRetry(batches: PreparedBatch[]): Promise<StoreResult[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await storePreparedBatches(this.db, batches, this.store);
      } catch (error) {
        if (attempt >= MAX_ATTEMPTS || classifyDatabaseError(error) !== 'retryable') throw error;
      }
    }
  }
}
