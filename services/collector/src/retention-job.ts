// Runs the retention run (packages/db/src/retention.ts) when the service starts and then every hour, one run at a time.
// A run that fails (the database down, a lock busy) is logged and tried again at the next tick; ingestion never waits
// for it.
import {
  type DatabaseHandle,
  deleteExpiredLinks,
  deleteUnusedArtifacts,
  type RetentionPolicy,
  type RetentionReport,
  runRetention,
} from '@collector/db';
import type { Logger } from './logger';

export interface RetentionJobOptions extends RetentionPolicy {
  /** Between runs; default one hour. */
  intervalMs?: number;
  /** Rows per delete statement (default 5,000); tests make it small to interleave many statements with ingestion. */
  chunk?: number;
}

export interface RetentionJob {
  /** Runs now, after the run in progress if any; rejects when the run fails (it is logged either way). */
  runNow(): Promise<RetentionReport>;
  stop(): Promise<void>;
}

export function startRetentionJob(
  database: DatabaseHandle,
  options: RetentionJobOptions,
  clock: () => number,
  logger: Logger,
): RetentionJob {
  /** The run in progress, settled either way (its failure is the caller's of runNow). */
  let running: Promise<void> | undefined;
  let stopped = false;
  // Stopping ends a run in progress between two of its statements: a long first run does not hold up a shutdown.
  const stopping = new AbortController();
  const run = async () => {
    const started = Date.now();
    try {
      const report = await runRetention(database.db, options, clock(), {
        chunk: options.chunk,
        signal: stopping.signal,
      });
      // Expired invitation and password reset links go with the same hourly run.
      await deleteExpiredLinks(database.db, clock());
      // Source-map bundles unused for RETENTION_DAYS, and chunks never assembled within a day.
      const artifacts = await deleteUnusedArtifacts(database.db, options.retentionDays, clock());
      logger.info({ ...report, ...artifacts, ms: Date.now() - started }, 'retention run');
      return report;
    } catch (error) {
      if (!stopped) logger.warn({ err: error }, 'retention run failed; trying again at the next one');
      throw error;
    }
  };
  const runNow = async (): Promise<RetentionReport> => {
    while (running) await running;
    if (stopped) throw new Error('the retention job is stopped');
    const current = run();
    running = current.then(
      () => undefined,
      () => undefined,
    );
    void running.then(() => {
      running = undefined;
    });
    return current;
  };
  // Failures are logged by run(); the next tick tries again.
  const tick = () => void runNow().catch(() => undefined);
  const timer = setInterval(tick, options.intervalMs ?? 3_600_000).unref();
  tick();
  return {
    runNow,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      stopping.abort();
      await running;
    },
  };
}
