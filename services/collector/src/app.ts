// The HTTP application: health probes, the OpenAPI document, tRPC for the typed client, REST for everyone else.
import { IncomingMessage, ServerResponse } from 'node:http';
import {
  type AccountOptions,
  type AlertChannels,
  type AnswerChecks,
  appRouter,
  contractError,
  createContextFactory,
  createOpenApiDocument,
  createRateLimiters,
  errorHeaders,
  errorStatus,
  IngestBudget,
  Ingestion,
  KnownApps,
  type RateLimitConfig,
  type Symbolicator,
  toAppError,
} from '@collector/api';
import {
  type DatabaseHandle,
  EventWriter,
  OutcomeCounter,
  RETRY_AFTER_UNAVAILABLE_SECONDS,
  storeFeedback,
} from '@collector/db';
import type { AppError } from '@collector/domain';
import { TRPCError } from '@trpc/server';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import compression from 'compression';
import express, { type Request } from 'express';
import { defaultDashboardDir, serveDashboard } from './dashboard';
import { DEFAULT_INGEST_MAX_IN_FLIGHT_BYTES, DEFAULT_UPLOAD_MAX_IN_FLIGHT_BYTES } from './env';
import { errorHandler, sendError } from './errors';
import type { Logger } from './logger';
import { assignRequestId, requestLogger } from './request-id';
import { createRestAdapter, parseQueryString } from './rest-adapter';
import { serveSdk } from './sdk';
import { createSentryRoutes, sentryFastPath } from './sentry/routes';
import { createSentryApiRoutes } from './sentry-api/routes';

export interface AppOptions {
  database: DatabaseHandle;
  /** The alert worker, which the alert routes ask to check URLs and send tests. */
  alerts: AlertChannels;
  /** Registration mode and account e-mails; default open, none sent. */
  accounts?: AccountOptions;
  /**
   * Counts of the outcomes decided before the write statement, flushed by whoever stops the service (server.ts);
   * default a counter of its own.
   */
  outcomes?: OutcomeCounter;
  rateLimits: RateLimitConfig;
  logger: Logger;
  clock?: () => number;
  trustProxy?: string | undefined;
  /**
   * The base of every app's DSN (PUBLIC_URL); asked when an app is shown, so it may depend on the port bound. Default:
   * the contract's default address, http://localhost:3100 (startServer always passes the real one).
   */
  publicUrl?: () => string;
  version?: string;
  /** The built dashboard served at /; default services/dashboard/dist. A missing folder serves the API only. */
  dashboardDir?: string;
  /** Bytes of bodies in flight (INGEST_MAX_IN_FLIGHT_BYTES), for ingestion and tRPC; default one of the default size. */
  ingestBudget?: IngestBudget;
  /** Bytes of source-map upload bodies in flight (UPLOAD_MAX_IN_FLIGHT_BYTES), apart from ingestion's. */
  uploadBudget?: IngestBudget;
  /** STORE_IP: false drops the user's IP address from events at ingestion; default true. */
  storeIp?: boolean;
  /** ANSWER_CHECKS: strict checks every API answer against its schema; default strict (the service's env: off). */
  answerChecks?: AnswerChecks | undefined;
  /** Write statements in flight at once with PostgreSQL (PGlite: always one); default 2. */
  writeConcurrency?: number | undefined;
  /** Processes writing to the database, this one included (WORKERS): they share what write statements hold; default 1. */
  workers?: number | undefined;
  /** Source maps applied at ingestion and when events are shown; none: events are stored and shown as sent. */
  symbolicator?: Symbolicator;
}

const READY_TIMEOUT_MS = 2_000;
/** The largest body tRPC reads, for every procedure. */
const TRPC_MAX_BODY_BYTES = 1024 * 1024;

export function createApp(options: AppOptions) {
  const { database, logger } = options;
  const ingestBudget = options.ingestBudget ?? new IngestBudget(DEFAULT_INGEST_MAX_IN_FLIGHT_BYTES, logger);
  const clock = options.clock ?? Date.now;
  const rateLimiters = createRateLimiters(options.rateLimits, database.db);
  const ingestion = new Ingestion({
    knownApps: new KnownApps(database.db),
    rateLimiter: rateLimiters.ingest,
    writer: new EventWriter(database.db, {
      concurrency: database.backend === 'pglite' ? 1 : (options.writeConcurrency ?? 2),
      processes: options.workers,
    }),
    outcomes: options.outcomes ?? new OutcomeCounter(database.db),
    budget: ingestBudget,
    storeFeedback: (appKey, items, receivedAt) => storeFeedback(database.db, appKey, items, receivedAt),
    clock,
    storeIp: options.storeIp ?? true,
    symbolicator: options.symbolicator,
  });
  const createContext = createContextFactory({
    db: database.db,
    clock,
    rateLimiters,
    ingestion,
    alerts: options.alerts,
    publicUrl: options.publicUrl ?? (() => 'http://localhost:3100'),
    accounts: options.accounts,
    answerChecks: options.answerChecks,
  });
  const logError = (error: AppError, req: Request | IncomingMessage) => {
    // Requests taken before Express (the Sentry POSTs) have no req.path: their URL's path is it.
    const path = 'path' in req ? req.path : req.url?.split('?')[0];
    if (error.code === 'INTERNAL')
      requestLogger(logger, req).error({ err: error.cause ?? error, method: req.method, path }, 'request failed');
    // The budget's refusals are logged by the budget, once a second at most.
    else if (error.code === 'UNAVAILABLE' && error !== ingestion.refusal)
      requestLogger(logger, req).warn({ err: error.cause ?? error, path }, 'database unavailable');
  };
  const openApiDocument = createOpenApiDocument({ baseUrl: '/', version: options.version ?? '0.1.0' });

  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', parseQueryString);
  if (options.trustProxy !== undefined) app.set('trust proxy', options.trustProxy);
  app.use(assignRequestId);

  // Paths outside the REST route table answer other methods with 405 like the API paths. For /trpc this also keeps
  // methods such as TRACE away from tRPC's adapter, whose fetch Request refuses them with a TypeError (a 500).
  const allowOnly =
    (...methods: string[]): express.RequestHandler =>
    (req, res, next) => {
      if (methods.includes(req.method)) return next();
      res.setHeader('Allow', methods.join(', '));
      next(contractError('METHOD_NOT_ALLOWED'));
    };
  app.all(['/healthz', '/readyz', '/api/openapi.json'], allowOnly('GET'));
  app.use('/trpc', allowOnly('GET', 'POST'));
  // Every read goes out brotli- or gzip-compressed to a client that takes it: the dashboard's page and bundles (a third
  // of their size or less) and the API's answers (GET over /trpc, as the typed client sends queries; over REST;
  // Sentry's API): an issue list is ~54 KB of JSON and an issue page ~119 KB, a tenth of that compressed, which over a
  // real network is most of the wait. compression negotiates Accept-Encoding, sets Vary, and leaves answers under 1 KB
  // and those already encoded (the browser SDK's, sdk.ts) alone. It wraps the response whatever it then decides (0.1
  // ms a call and more for the garbage collector, docs/performance.md), so a request that names no encoding, and any
  // write, skip it.
  const compress = compression();
  app.use((req, res, next) =>
    (req.method === 'GET' || req.method === 'HEAD') && req.headers['accept-encoding']
      ? compress(req, res, next)
      : next(),
  );

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error('timeout')), READY_TIMEOUT_MS).unref(),
    );
    try {
      await Promise.race([database.ping(), timeout]);
      res.json({ status: 'ready', database: database.backend });
    } catch {
      sendError(res, contractError('UNAVAILABLE', { retryAfterSeconds: RETRY_AFTER_UNAVAILABLE_SECONDS }));
    }
  });
  app.get('/api/openapi.json', (_req, res) => {
    res.json(openApiDocument);
  });

  // tRPC takes the budget too: it reads a POST's body (up to maxBodySize, whatever the procedure) as soon as it gets
  // the request, before it knows the procedure, and keeps the parsed input until the call ends, so every POST here
  // reserves it (a login's few hundred bytes cost what they are). A refused one is given an empty body, so tRPC reads
  // nothing, and is answered by createContext with a tRPC error, whose code the typed client reads.
  const refusedCalls = new WeakSet<IncomingMessage>();
  app.use('/trpc', (req, res, next) => {
    if (req.method === 'POST' && !ingestion.admit(req, res, TRPC_MAX_BODY_BYTES)) {
      refusedCalls.add(req);
      req.body = '';
    }
    next();
  });
  app.use(
    '/trpc',
    createExpressMiddleware({
      router: appRouter,
      createContext: ({ req }) => {
        if (refusedCalls.has(req))
          throw new TRPCError({
            code: errorStatus.UNAVAILABLE.trpc,
            message: ingestion.refusal.message,
            cause: ingestion.refusal,
          });
        return createContext({ req });
      },
      maxBodySize: TRPC_MAX_BODY_BYTES,
      // One call per request, as over REST: a batch would let one small request fan out into many queries.
      allowBatching: false,
      onError: ({ error, req }) => logError(toAppError(error), req as Request),
      // The same headers as over REST: Retry-After on 429/503, WWW-Authenticate on 401.
      responseMeta: ({ errors }) => (errors[0] ? { headers: errorHeaders(toAppError(errors[0])) } : {}),
    }),
  );
  app.use(serveSdk(logger));
  // Sentry SDKs' endpoints read their bodies as streams of their own, so they come before the REST adapter.
  app.use(createSentryRoutes(ingestion));
  app.use(
    createSentryApiRoutes({
      db: database.db,
      rateLimiters,
      clock,
      publicUrl: options.publicUrl ?? (() => 'http://localhost:3100'),
      logger,
      uploadBudget:
        options.uploadBudget ??
        new IngestBudget(DEFAULT_UPLOAD_MAX_IN_FLIGHT_BYTES, logger, 'UPLOAD_MAX_IN_FLIGHT_BYTES'),
    }),
  );
  // The dashboard's files and its page for non-API paths; everything under /api still ends in the REST adapter.
  app.use(serveDashboard({ dir: options.dashboardDir ?? defaultDashboardDir, logger }));
  app.use(createRestAdapter(createContext, ingestion));
  const handleError = errorHandler(logError);
  app.use(handleError);
  // Sentry SDKs' POSTs, one event a request, are taken before Express (sentry/routes.ts); everything else is Express's.
  const takeSentryPost = sentryFastPath(ingestion, handleError);
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    if (!takeSentryPost(req, res)) app(req, res);
  };
  return Object.assign(handler, { serverOptions: expressClasses(app) });
}

/**
 * Request and response classes for the HTTP server that already carry Express's methods and getters: this app's
 * `request` and `response` become their prototypes. Express gives each request's objects those prototypes with
 * Object.setPrototypeOf, and on objects of Node's own classes V8 then kept about 1 KB of every request alive through
 * the next scavenges (5 MB at each on a trivial route, each pause 4-5 ms against 0.1) and the route took twice as long
 * (docs/performance.md). With these classes that call finds the prototype in place and changes nothing.
 */
export function expressClasses(app: express.Express) {
  class Request extends IncomingMessage {}
  class Response extends ServerResponse {}
  for (const [made, from] of [
    [Request, app.request],
    [Response, app.response],
  ] as const) {
    // Express's own methods and getters (the object app.request is made from), then the app's (its `app`).
    Object.defineProperties(made.prototype, Object.getOwnPropertyDescriptors(Object.getPrototypeOf(from)));
    Object.defineProperties(made.prototype, Object.getOwnPropertyDescriptors(from));
  }
  app.request = Request.prototype as express.Request;
  app.response = Response.prototype as express.Response;
  return { IncomingMessage: Request, ServerResponse: Response };
}
