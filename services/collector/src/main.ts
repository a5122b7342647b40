// Entry point: `pnpm start`.
import { parseEnv } from './env';
import { createLogger } from './logger';
import { startServer } from './server';

let env;
try {
  env = parseEnv(process.env);
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
const logger = createLogger(env.logLevel);

// A stray rejection is a bug to log, not a reason to drop every other request in flight.
process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));

try {
  const server = await startServer({
    port: env.port,
    host: env.host,
    databaseUrl: env.databaseUrl,
    dataDir: env.dataDir,
    databasePoolSize: env.databasePoolSize,
    rateLimits: { ingestPerSecond: env.ingestRateLimit, ingestBurst: env.ingestRateBurst },
    trustProxy: env.trustProxy,
    publicUrl: env.publicUrl,
    retention: env.retention,
    logger,
  });
  const where = env.databaseUrl ? 'PostgreSQL' : `embedded PostgreSQL in ${env.dataDir}`;
  // server.url has the port actually bound, which differs from env.port when PORT=0 asks for any free one.
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
