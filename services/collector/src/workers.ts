// WORKERS=N: N collector processes sharing one port (node:cluster). The primary serves nothing itself: it starts the
// embedded PostgreSQL server when there is no DATABASE_URL, migrates once, forks the workers and hands each the
// database to use, replaces a worker that dies, and on SIGTERM or SIGINT lets every worker drain before it stops the
// database. Workers behave as one service because what they share lives in the database: sessions, app keys, and the
// ingestion rate limit (leased tokens, packages/api/src/rate-limiter.ts). Sign-in throttling is per process.
import cluster, { type Worker } from 'node:cluster';
import { type EmbeddedPostgres, migrateDatabase, startEmbeddedPostgres } from '@collector/db';
import type { Env } from './env';
import type { Logger } from './logger';

/** What the primary tells each worker once it is online. */
export interface WorkerAssignment {
  databaseUrl: string | undefined;
  databaseBackend: 'postgres' | 'embedded';
}

const ASK = 'collector:assignment?';

/** In a worker: asks the primary for its assignment (asking, so that the answer cannot come before a listener). */
export function workerAssignment(): Promise<WorkerAssignment> {
  return new Promise((resolve) => {
    process.once('message', (message: WorkerAssignment) => resolve(message));
    process.send?.(ASK);
  });
}

/** A worker that dies sooner than this after its start is failing to start, not crashing in service. */
const FAILED_START_MS = 10_000;

export async function runPrimary(env: Env, logger: Logger): Promise<void> {
  if (!env.databaseUrl && env.embedded === 'pglite') {
    logger.fatal(
      'WORKERS > 1 needs PostgreSQL: PGlite serves one process only. Unset EMBEDDED (the embedded PostgreSQL server) or set DATABASE_URL.',
    );
    process.exit(1);
  }
  let embedded: EmbeddedPostgres | undefined;
  try {
    embedded = env.databaseUrl
      ? undefined
      : await startEmbeddedPostgres({ dataDir: env.dataDir, log: (message) => logger.info(message) });
    await migrateDatabase({ url: env.databaseUrl ?? embedded?.url });
  } catch (error) {
    logger.fatal({ err: error }, 'could not start');
    await embedded?.stop();
    process.exit(1);
  }
  const assignment: WorkerAssignment = {
    databaseUrl: env.databaseUrl ?? embedded?.url,
    databaseBackend: embedded ? 'embedded' : 'postgres',
  };

  let stopping = false;
  let listening = 0;
  const startedAt = new Map<Worker, number>();
  const fork = () => {
    const worker = cluster.fork();
    startedAt.set(worker, Date.now());
    worker.on('message', (message) => message === ASK && worker.send(assignment));
    worker.once('listening', (address) => {
      listening += 1;
      if (listening === env.workers) {
        const where = env.databaseUrl ? 'PostgreSQL' : `embedded PostgreSQL in ${env.dataDir}`;
        logger.info(
          `collector listening on http://${env.host ?? 'localhost'}:${address.port} (${env.workers} workers, ${where})`,
        );
      }
    });
  };
  cluster.on('exit', (worker, code, signal) => {
    const ranMs = Date.now() - (startedAt.get(worker) ?? 0);
    startedAt.delete(worker);
    if (stopping) return;
    if (ranMs < FAILED_START_MS) {
      logger.fatal(`worker ${worker.process.pid} exited ${signal ?? code} during start: stopping`);
      void shutdown('a worker failed to start', 1);
      return;
    }
    logger.error(`worker ${worker.process.pid} exited ${signal ?? code}: starting another`);
    fork();
  });

  const shutdown = async (reason: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    logger.info(`${reason}: the workers finish their in-flight requests`);
    const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.isDead()) return resolve();
            worker.once('exit', () => resolve());
            worker.process.kill('SIGTERM');
          }),
      ),
    );
    await embedded?.stop();
    logger.info('stopped');
    process.exit(exitCode);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  for (let i = 0; i < env.workers; i++) fork();
}
