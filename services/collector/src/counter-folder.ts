// Folds the counter ledger (packages/db/src/counters.ts) twice a second. Every process runs one; the advisory lock in
// foldCounters lets one fold at a time, and the others skip that tick. Counts are exact whether or not a fold ran (the
// views add the unfolded deltas): folding only keeps the ledger short, and the list's sort keys within a second.
import { type DatabaseHandle, foldCounters } from '@collector/db';
import type { Logger } from './logger';

export interface CounterFolder {
  stop(): Promise<void>;
}

export function startCounterFolder(
  database: DatabaseHandle,
  logger: Logger,
  intervalMs = 500,
  vacuumEveryMs = 1_000,
): CounterFolder {
  let running: Promise<void> | undefined;
  let failing = false;
  let lastVacuum = Date.now();
  const tick = () => {
    // A fold still running (a slow database) is not joined by a second.
    if (running) return;
    // Every second the fold also vacuums the ledger (counters.ts), so its tables keep about the size of a few seconds
    // of deltas; the process that holds the fold's lock then does it.
    const vacuum = Date.now() - lastVacuum >= vacuumEveryMs;
    running = foldCounters(database.db, { vacuum })
      .then(
        (folded) => {
          if (vacuum && folded) lastVacuum = Date.now();
          if (failing) logger.info('counter fold works again');
          failing = false;
        },
        (error) => {
          // Once per outage, not twice a second: the deltas wait in the ledger, still counted.
          if (!failing) logger.warn({ err: error }, 'counter fold failed; trying again at every tick');
          failing = true;
        },
      )
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, intervalMs).unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
