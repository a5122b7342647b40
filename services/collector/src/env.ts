// The only place that reads process.env: parsed once at start; a bad value stops the process and names the variable.
import { availableParallelism } from 'node:os';
import { z } from 'zod';

/**
 * INGEST_MAX_IN_FLIGHT_BYTES's default, against the 1 GiB heap `pnpm start` gives node. A parsed body takes about its
 * own size in the heap for real batches, but up to 21 times it for the worst shape (`[{},{},...]`, which the parser
 * takes before any validation): 32 MiB x 21 leaves the heap a third for everything else even then, while 32 batches
 * of the largest size (1 MiB) may be in flight at once, far more than steady ingestion holds. A flood of such bodies
 * ran a 1 GiB process out of heap at 64 MiB, not at 32 (docs/operations.md, "Ingestion bytes in flight").
 */
export const DEFAULT_INGEST_MAX_IN_FLIGHT_BYTES = 32 * 1024 * 1024;

/**
 * UPLOAD_MAX_IN_FLIGHT_BYTES's default: source-map uploads' own budget, apart from ingestion's so that a CI upload never
 * takes the room of events. Two requests of the largest size the upload options allow (32 MiB), sentry-cli's
 * concurrency there; a third waits on 503 + Retry-After, which sentry-cli retries.
 */
export const DEFAULT_UPLOAD_MAX_IN_FLIGHT_BYTES = 64 * 1024 * 1024;

const wholeNumber = (min: number, max: number) =>
  z.string().regex(/^\d+$/, 'must be a whole number').transform(Number).pipe(z.int().min(min).max(max));
const integer = (fallback: number, min: number, max: number) => wholeNumber(min, max).default(fallback);

const envSchema = z
  .object({
    PORT: integer(3100, 0, 65_535),
    /** Interface to listen on; unset means all interfaces. */
    HOST: z.string().min(1).optional(),
    DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// URL' }).optional(),
    DATABASE_POOL_SIZE: integer(10, 1, 200),
    DATA_DIR: z.string().min(1).default('.data'),
    /** Without DATABASE_URL: a PostgreSQL server of the collector's own in DATA_DIR, or PGlite (earlier versions' default). */
    EMBEDDED: z.enum(['postgres', 'pglite']).default('postgres'),
    /** Events per second per appKey; 0 turns the limit off. */
    INGEST_RATE_LIMIT: integer(1000, 0, 10_000_000),
    INGEST_RATE_BURST: integer(5000, 50, 100_000_000),
    /**
     * Bytes of request bodies (ingestion, tRPC) a process holds at once (packages/api/src/ingestion/budget.ts); past it, 503 with Retry-After.
     * At least one largest batch (1 MiB); at most 64 GiB.
     */
    INGEST_MAX_IN_FLIGHT_BYTES: integer(DEFAULT_INGEST_MAX_IN_FLIGHT_BYTES, 1024 * 1024, 64 * 1024 * 1024 * 1024),
    /**
     * Bytes of source-map upload bodies (sentry-cli's chunks) a process holds at once, apart from ingestion's; past it,
     * 503 with Retry-After. At least one largest upload request (33 MiB); at most 64 GiB.
     */
    UPLOAD_MAX_IN_FLIGHT_BYTES: integer(DEFAULT_UPLOAD_MAX_IN_FLIGHT_BYTES, 33 * 1024 * 1024, 64 * 1024 * 1024 * 1024),
    /** Express's "trust proxy": set it behind a reverse proxy so per-address throttling sees the client, not the proxy. */
    TRUST_PROXY: z.string().min(1).optional(),
    /** Collector processes sharing the port (node:cluster); each has its own pool of DATABASE_POOL_SIZE connections. */
    WORKERS: integer(1, 1, 64),
    /**
     * Write statements each process keeps in flight (PostgreSQL; PGlite takes one at a time). More lets writes overlap;
     * fewer merges more batches into each, which pays a statement's fixed cost less often. Unset:
     * defaultWriteConcurrency.
     */
    WRITE_CONCURRENCY: wholeNumber(1, 16).optional(),
    /**
     * The collector's address as SDKs and browsers reach it (behind a proxy: the proxy's), the base of every app's DSN.
     * Unset: http://localhost:<PORT>, with the port actually bound.
     */
    PUBLIC_URL: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional(),
    /**
     * Source maps (issue 22): mapping threads (0: events are stored as sent), the time limit per event (past it the
     * event is stored unmapped, its symbolication state `timeout`), and the bytes of parsed maps each thread keeps.
     */
    SYMBOLICATION_WORKERS: integer(1, 0, 4),
    SYMBOLICATION_TIMEOUT_MS: integer(2_000, 10, 60_000),
    SYMBOLICATION_CACHE_BYTES: integer(64 * 1024 * 1024, 1024 * 1024, 1024 * 1024 * 1024),
    /** Stored events older than this many days are deleted (at start, then hourly); totals keep counting them. */
    RETENTION_DAYS: integer(90, 1, 3650),
    /** Payloads kept per issue, the newest; older ones are deleted, counts stay exact. */
    MAX_EVENTS_PER_ISSUE: integer(10_000, 1, 100_000_000),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** Lets webhooks reach loopback, private and link-local addresses: for receivers on the collector's own network. */
    ALERTS_ALLOW_PRIVATE_NETWORKS: z.enum(['true', 'false'], { error: 'must be true or false' }).default('false'),
    /** smtp://user:pass@host:port or smtps://...; without it e-mail alerts cannot be created. */
    SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional(),
    MAIL_FROM: z.string().min(3).default('collector@localhost'),
    /** Who may register: anyone, holders of an invitation, or no one (the very first user always may). */
    REGISTRATION: z.enum(['open', 'invite', 'closed']).default('open'),
    /** false: the user's IP address an SDK sends is dropped at ingestion, before anything is stored. */
    STORE_IP: z.enum(['true', 'false'], { error: 'must be true or false' }).default('true'),
    /** strict: each API answer is checked against its schema, as tests run; off: sent as built (answer-checks.ts). */
    ANSWER_CHECKS: z.enum(['strict', 'off']).default('off'),
  })
  .transform((env) => ({
    port: env.PORT,
    host: env.HOST,
    databaseUrl: env.DATABASE_URL,
    databasePoolSize: env.DATABASE_POOL_SIZE,
    dataDir: env.DATA_DIR,
    embedded: env.EMBEDDED,
    ingestRateLimit: env.INGEST_RATE_LIMIT,
    ingestRateBurst: env.INGEST_RATE_BURST,
    ingestMaxInFlightBytes: env.INGEST_MAX_IN_FLIGHT_BYTES,
    uploadMaxInFlightBytes: env.UPLOAD_MAX_IN_FLIGHT_BYTES,
    trustProxy: env.TRUST_PROXY,
    workers: env.WORKERS,
    writeConcurrency: env.WRITE_CONCURRENCY,
    storeIp: env.STORE_IP === 'true',
    answerChecks: env.ANSWER_CHECKS,
    symbolication: {
      workers: env.SYMBOLICATION_WORKERS,
      timeoutMs: env.SYMBOLICATION_TIMEOUT_MS,
      cacheBytes: env.SYMBOLICATION_CACHE_BYTES,
    },
    publicUrl: env.PUBLIC_URL,
    retention: { retentionDays: env.RETENTION_DAYS, maxEventsPerIssue: env.MAX_EVENTS_PER_ISSUE },
    logLevel: env.LOG_LEVEL,
    alerts: {
      allowPrivateNetworks: env.ALERTS_ALLOW_PRIVATE_NETWORKS === 'true',
      smtpUrl: env.SMTP_URL,
      mailFrom: env.MAIL_FROM,
    },
    registration: env.REGISTRATION,
  }));

export type Env = Omit<z.output<typeof envSchema>, 'writeConcurrency'> & { writeConcurrency: number };

/**
 * Write statements a process keeps in flight unless WRITE_CONCURRENCY says: two for one process, or while the
 * processes' two each stay under the machine's cores, else one. A process's second statement runs in PostgreSQL while
 * the first commits and the process parses the next batches: one process took 15-20% more events/s with two on two
 * cores, two or four processes 1.5x on 16. Where the statements would reach the cores (eight processes on 16, four on
 * two) a second each added contention in PostgreSQL for no more events/s (docs/scaling.md). `cores`:
 * os.availableParallelism(), which counts a container's CPU quota from Node 24 on, not in Node 20 (README).
 */
function defaultWriteConcurrency(workers: number, cores: number): number {
  return workers === 1 || 2 * workers < cores ? 2 : 1;
}

export function parseEnv(source: Record<string, string | undefined>, cores = availableParallelism()): Env {
  // An empty variable counts as unset, as in most shells' `FOO= cmd` habit.
  const present = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = envSchema.safeParse(present);
  if (parsed.success)
    return {
      ...parsed.data,
      writeConcurrency: parsed.data.writeConcurrency ?? defaultWriteConcurrency(parsed.data.workers, cores),
    };
  const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`).join('\n');
  throw new Error(`invalid environment:\n${problems}`);
}
