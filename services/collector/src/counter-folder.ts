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
  // Whether folds have moved deltas since a vacuum last found the ledger quiet (at start: not known, so one is due).
  let dirty = true;
  const tick = () => {
    // A fold still running (a slow database) is not joined by a second.
    if (running) return;
    // Every second while deltas arrive, and once more when they stop, the fold also vacuums the ledger (counters.ts),
    // so its tables keep about the size of a few seconds of deltas; an idle ledger is left alone.
    const vacuum = dirty && Date.now() - lastVacuum >= vacuumEveryMs;
    running = foldCounters(database.db, { vacuum })
      .then(
        (moved) => {
          if (moved !== false) {
            if (vacuum) lastVacuum = Date.now();
            if (vacuum && moved === 0) dirty = false;
            if (moved > 0) dirty = true;
          }
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
