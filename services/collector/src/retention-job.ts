// Runs the retention run (packages/db/src/retention.ts) when the service starts and then every hour, one run at a time.
// A run that fails (the database down, a lock busy) is logged and tried again at the next tick; ingestion never waits
// for it.
import { type DatabaseHandle, type RetentionPolicy, runRetention } from '@collector/db';
import type { Logger } from './logger';

export interface RetentionJobOptions extends RetentionPolicy {
  /** Between runs; default one hour. */
  intervalMs?: number;
}

export interface RetentionJob {
  /** Runs now (or waits for the run in progress, then runs again); resolves when done. */
  runNow(): Promise<void>;
  stop(): Promise<void>;
}

export function startRetentionJob(database: DatabaseHandle, options: RetentionJobOptions, clock: () => number, logger: Logger): RetentionJob {
  let running: Promise<void> | undefined;
  let stopped = false;
  const run = async () => {
    const started = Date.now();
    try {
      const report = await runRetention(database.db, options, clock());
      logger.info({ ...report, ms: Date.now() - started }, 'retention run');
    } catch (error) {
      if (!stopped) logger.warn({ err: error }, 'retention run failed; trying again at the next one');
    }
  };
  const runNow = async (): Promise<void> => {
    while (running) await running;
    if (stopped) return;
    running = run().finally(() => {
      running = undefined;
    });
    return running;
  };
  const timer = setInterval(() => void runNow(), options.intervalMs ?? 3_600_000).unref();
  void runNow();
  return {
    runNow,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
