// Entry point: `pnpm start`. With WORKERS > 1 this process is the primary of a cluster (workers.ts), and each worker
// runs the rest of this file.
import cluster from 'node:cluster';
import { type Env, parseEnv } from './env';
import { createLogger } from './logger';
import { runPrimary, workerAssignment } from './workers';

let env: Env;
try {
  env = parseEnv(process.env);
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
const logger = createLogger(env.logLevel);

// A stray rejection is a bug to log, not a reason to drop every other request in flight.
process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));

if (env.workers > 1 && cluster.isPrimary) {
  await runPrimary(env, logger);
} else {
  await serve(env);
}

async function serve(env: Env) {
  const assigned = cluster.isWorker ? await workerAssignment() : undefined;
  // Loaded here, not at the top: a cluster's primary serves nothing and need not hold the HTTP stack in memory.
  const { startServer } = await import('./server');
  try {
    const server = await startServer({
      port: env.port,
      host: env.host,
      databaseUrl: assigned ? assigned.databaseUrl : env.databaseUrl,
      databaseBackend: assigned?.databaseBackend,
      dataDir: env.dataDir,
      embedded: env.embedded,
      databasePoolSize: env.databasePoolSize,
      rateLimits: { ingestPerSecond: env.ingestRateLimit, ingestBurst: env.ingestRateBurst },
      ingestMaxInFlightBytes: env.ingestMaxInFlightBytes,
      uploadMaxInFlightBytes: env.uploadMaxInFlightBytes,
      trustProxy: env.trustProxy,
      alerts: env.alerts,
      registration: env.registration,
      storeIp: env.storeIp,
      answerChecks: env.answerChecks,
      writeConcurrency: env.writeConcurrency,
      workers: env.workers,
      symbolication: env.symbolication,
      retention: env.retention,
      publicUrl: env.publicUrl,
      logger,
    });
    const where = env.databaseUrl
      ? 'PostgreSQL'
      : env.embedded === 'pglite'
        ? `PGlite in ${env.dataDir}`
        : `embedded PostgreSQL in ${env.dataDir}`;
    // server.url has the port actually bound, which differs from env.port when PORT=0 asks for any free one.
    // A worker's primary says it once for all.
    if (!assigned)
      logger.info(`collector listening on ${server.url.replace('localhost', env.host ?? 'localhost')} (${where})`);

    let stopping = false;
    const shutdown = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      logger.info(`${signal}: finishing in-flight requests`);
      await server.stop();
      logger.info('stopped');
      process.exit(0);
    };
    process.on('SIGTERM', () => void shutdown('SIGTERM'));
    process.on('SIGINT', () => void shutdown('SIGINT'));
  } catch (error) {
    logger.fatal({ err: error }, 'could not start');
    process.exit(1);
  }
}
