// Starting and stopping the whole service: database, migrations, HTTP. Used by main.ts and by the tests.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AnswerChecks,
  assembliesDone,
  defaultRateLimits,
  defaultSymbolicationOptions,
  IngestBudget,
  type RateLimitConfig,
  type RegistrationMode,
  type SymbolicationOptions,
  Symbolicator,
} from '@collector/api';
import {
  type DatabaseHandle,
  type DatabaseTimeouts,
  type EmbeddedPostgres,
  migrateDatabase,
  migrateToLatest,
  OutcomeCounter,
  openDatabase,
  startEmbeddedPostgres,
} from '@collector/db';
import { createMailer } from './alerts/email';
import { type AlertOptions, AlertWorker } from './alerts/worker';
import { createApp } from './app';
import { startCounterFolder } from './counter-folder';
import { DEFAULT_INGEST_MAX_IN_FLIGHT_BYTES, DEFAULT_UPLOAD_MAX_IN_FLIGHT_BYTES } from './env';
import type { Logger } from './logger';
import { type RetentionJob, type RetentionJobOptions, startRetentionJob } from './retention-job';

export interface StartOptions {
  port: number;
  host?: string | undefined;
  databaseUrl?: string | undefined;
  /** Without databaseUrl: the embedded PostgreSQL server in dataDir (the default), or PGlite there. */
  embedded?: 'postgres' | 'pglite' | undefined;
  /** With databaseUrl: say 'embedded' when it is an embedded server started elsewhere (a cluster's primary process). */
  databaseBackend?: 'postgres' | 'embedded' | undefined;
  /** Where the embedded database lives; needed without databaseUrl. */
  dataDir?: string | undefined;
  databasePoolSize?: number;
  /** How long a request may wait on PostgreSQL; default DEFAULT_TIMEOUTS (@collector/db). */
  databaseTimeouts?: Partial<DatabaseTimeouts> | undefined;
  rateLimits?: Partial<RateLimitConfig>;
  /** INGEST_MAX_IN_FLIGHT_BYTES: bytes of request bodies (ingestion, tRPC) this process holds at once; default 32 MiB. */
  ingestMaxInFlightBytes?: number | undefined;
  /** UPLOAD_MAX_IN_FLIGHT_BYTES: bytes of source-map upload bodies this process holds at once; default 64 MiB. */
  uploadMaxInFlightBytes?: number | undefined;
  trustProxy?: string | undefined;
  /** The base of every app's DSN; default http://localhost:<the port bound>. */
  publicUrl?: string | undefined;
  clock?: () => number;
  /** Without it: links to http://localhost:<port>, private networks refused, no e-mail. */
  alerts?: Partial<AlertOptions>;
  /** REGISTRATION; default open. */
  registration?: RegistrationMode | undefined;
  /** STORE_IP; default true. */
  storeIp?: boolean | undefined;
  /** ANSWER_CHECKS; default strict (the environment's default is off: env.ts). */
  answerChecks?: AnswerChecks | undefined;
  /** WRITE_CONCURRENCY; default 2 (the environment's default depends on WORKERS and the cores: env.ts). */
  writeConcurrency?: number | undefined;
  /** WORKERS: the processes that write beside this one, it included (they share what write statements hold); default 1. */
  workers?: number | undefined;
  /** SYMBOLICATION_*: source maps applied at ingestion; default one worker, 2 s per event, 64 MiB of maps. */
  symbolication?: Partial<SymbolicationOptions> | undefined;
  /** RETENTION_DAYS and MAX_EVENTS_PER_ISSUE; without it no retention run is scheduled (tests that do not need one). */
  retention?: RetentionJobOptions | undefined;
  logger: Logger;
}

export interface RunningServer {
  url: string;
  database: DatabaseHandle;
  /** The retention job, when one was asked for. */
  retention: RetentionJob | undefined;
  /** The ingestion routes' budget of bytes in flight. */
  ingestBudget: IngestBudget;
  /** Source-map uploads' budget of bytes in flight, apart from ingestion's. */
  uploadBudget: IngestBudget;
  /** Stops taking connections, lets in-flight requests finish, then closes the database. */
  stop(): Promise<void>;
}

export async function startServer(options: StartOptions): Promise<RunningServer> {
  const { logger } = options;
  const pglite = !options.databaseUrl && options.embedded === 'pglite';
  if (!options.databaseUrl && !options.dataDir) throw new Error('startServer: a databaseUrl or a dataDir is needed');
  // Without a URL the collector runs its own PostgreSQL server in dataDir, and stops it with itself.
  const embedded: EmbeddedPostgres | undefined =
    options.databaseUrl || pglite
      ? undefined
      : await startEmbeddedPostgres({ dataDir: options.dataDir as string, log: (message) => logger.info(message) });
  const databaseUrl = options.databaseUrl ?? embedded?.url;
  let opened: DatabaseHandle | undefined;
  try {
    // PostgreSQL is migrated on a connection of its own, free of the request timeouts; PGlite holds one connection
    // only, so it is migrated on the handle that then serves.
    if (databaseUrl) await migrateDatabase({ url: databaseUrl });
    opened = await openDatabase({
      url: databaseUrl,
      backend: embedded ? 'embedded' : options.databaseBackend,
      dataDir: options.dataDir,
      maxConnections: options.databasePoolSize,
      timeouts: options.databaseTimeouts,
      onConnectionError: (error) => logger.warn({ err: error }, 'database connection lost'),
    });
    if (pglite) await migrateToLatest(opened.db);
  } catch (error) {
    await opened?.close();
    await embedded?.stop();
    throw error;
  }
  const database = opened;
  const close = async () => {
    await database.close();
    await embedded?.stop();
  };
  const outcomes = new OutcomeCounter(database.db, {
    onError: (error) => logger.warn({ err: error }, 'outcomes not written yet; retrying'),
  });
  let boundPort = options.port;
  const alertWorker = new AlertWorker(
    database.db,
    { allowPrivateNetworks: false, ...options.alerts },
    logger,
    options.clock,
  );
  const ingestBudget = new IngestBudget(options.ingestMaxInFlightBytes ?? DEFAULT_INGEST_MAX_IN_FLIGHT_BYTES, logger);
  const uploadBudget = new IngestBudget(
    options.uploadMaxInFlightBytes ?? DEFAULT_UPLOAD_MAX_IN_FLIGHT_BYTES,
    logger,
    'UPLOAD_MAX_IN_FLIGHT_BYTES',
  );
  // Invitations and password resets go out through the SMTP server of the alerts, when there is one.
  const accountMailer = options.alerts?.smtpUrl
    ? createMailer(options.alerts.smtpUrl, options.alerts.mailFrom ?? 'collector@localhost')
    : undefined;
  const symbolicator = new Symbolicator(
    database.db,
    { ...defaultSymbolicationOptions, ...options.symbolication },
    options.clock,
  );
  const app = createApp({
    database,
    ingestBudget,
    symbolicator,
    uploadBudget,
    storeIp: options.storeIp ?? true,
    answerChecks: options.answerChecks,
    writeConcurrency: options.writeConcurrency,
    workers: options.workers,
    accounts: {
      registration: options.registration ?? 'open',
      sendMail:
        accountMailer &&
        ((mail) =>
          accountMailer
            .send({ ...mail, html: '' })
            .catch((error: unknown) => logger.warn({ err: error, to: mail.to }, 'account e-mail not sent'))),
    },
    alerts: alertWorker,
    logger,
    outcomes,
    publicUrl: () => options.publicUrl ?? `http://localhost:${boundPort}`,
    clock: options.clock,
    trustProxy: options.trustProxy,
    rateLimits: { ...defaultRateLimits, ...options.rateLimits },
  });
  const server = createServer(app.serverOptions, app).listen(options.port, options.host ?? '::');
  // Requests Node's HTTP parser refuses (bad header bytes, oversize headers, a body longer than its
  // Content-Length) never reach Express; answer them with the contract's JSON body too.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const headersTooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const status = headersTooLarge ? '413 Payload Too Large' : '400 Bad Request';
    const body = JSON.stringify({
      error: headersTooLarge
        ? { code: 'PAYLOAD_TOO_LARGE', message: 'the request headers are too large' }
        : { code: 'VALIDATION_FAILED', message: 'the request is not valid HTTP' },
    });
    socket.end(
      `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  await Promise.race([once(server, 'listening'), once(server, 'error').then(([error]) => Promise.reject(error))]).catch(
    async (error) => {
      await close();
      throw error;
    },
  );
  const { port } = server.address() as AddressInfo;
  boundPort = port;
  const url = `http://localhost:${port}`;
  // Links in alerts lead to the dashboard where users reach it: PUBLIC_URL, else this address.
  alertWorker.start(options.publicUrl ?? url);
  // At start, then hourly; the server already serves while the first run goes on.
  const retention = options.retention
    ? startRetentionJob(database, options.retention, options.clock ?? Date.now, logger)
    : undefined;
  const folder = startCounterFolder(database, logger);
  return {
    url,
    database,
    retention,
    ingestBudget,
    uploadBudget,
    stop: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await retention?.stop();
      await folder.stop();
      await alertWorker.stop();
      accountMailer?.close();
      await symbolicator.close();
      await assembliesDone();
      await outcomes.flush().catch((error) => logger.warn({ err: error }, 'outcomes of the last second not written'));
      await close();
    },
  };
}
