// Opens the database: PostgreSQL through pg when a URL is given (a server of yours, or the embedded one that
// embedded-postgres.ts starts), otherwise PGlite in a folder (EMBEDDED=pglite).
import { mkdirSync } from 'node:fs';
import { PGlite, types as pgliteTypes } from '@electric-sql/pglite';
import {
  type Compilable,
  CompiledQuery,
  Kysely,
  PostgresDialect,
  type PostgresPool,
  type PostgresPoolClient,
  sql,
} from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import { JsonbArray } from './jsonb-array';
import type { Database } from './schema';

/** What /readyz reports: PostgreSQL of yours, the embedded PostgreSQL server, or PGlite. */
export type Backend = 'postgres' | 'embedded' | 'pglite';

export interface DatabaseHandle {
  db: Kysely<Database>;
  backend: Backend;
  /** Succeeds when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** A PostgreSQL URL; without it PGlite is used. */
  url?: string | undefined;
  /** With a URL: 'embedded' when it is the collector's own embedded server. */
  backend?: 'postgres' | 'embedded' | undefined;
  /** Folder of the PGlite database; `memory://` keeps it in memory. */
  dataDir?: string | undefined;
  maxConnections?: number | undefined;
  /** Errors of idle pooled connections (a PostgreSQL restart); without a listener pg would crash the process. */
  onConnectionError?: ((error: Error) => void) | undefined;
  /** PostgreSQL only; DEFAULT_TIMEOUTS where not given. */
  timeouts?: Partial<DatabaseTimeouts> | undefined;
}

// int8 (counts, ms timestamps) and numeric (sums) as numbers, the one place both backends are normalised.
// Every value this schema holds stays below 2^53.
const INT8 = 20;
const NUMERIC = 1700;
const toNumber = (value: string) => Number(value);

/**
 * How long a request may wait on PostgreSQL. A database that is down, restarting or frozen must turn requests into
 * 503s within 5 s (docs/reliability.md), so the longest wait, a checkout plus one statement, stays below that.
 */
export interface DatabaseTimeouts {
  /** A new connection to be accepted, or a busy pool to free one. A frozen server accepts TCP but never answers. */
  connectMs: number;
  /** Server side (statement_timeout): PostgreSQL cancels the statement and the connection stays usable. */
  statementMs: number;
  /** Client side: a statement unanswered this long fails and its connection is destroyed (a frozen or unreachable server). */
  queryMs: number;
  /** The readiness probe's own checkout and query. */
  pingMs: number;
}

export const DEFAULT_TIMEOUTS: DatabaseTimeouts = {
  connectMs: 2_000,
  statementMs: 3_000,
  queryMs: 3_500,
  pingMs: 1_500,
};

/**
 * Whether a connection can serve another query after this error. An error the server sent on a live session
 * (constraint, syntax, statement_timeout) leaves it usable; anything else (a client-side read timeout, whose statement
 * may still be running, a dropped socket, a FATAL or shutdown message) does not: a later query would queue behind
 * the hung one or fail in turn.
 */
function leavesConnectionUsable(error: unknown): boolean {
  if (!(error instanceof pg.DatabaseError)) return false;
  if (error.severity === 'FATAL' || error.severity === 'PANIC') return false;
  return !(error.code?.startsWith('08') || error.code?.startsWith('57P'));
}

/**
 * A statement whose text starts with this comment is prepared on each connection the first time it runs there, then
 * only executed: PostgreSQL parses and plans it once per connection instead of once per call. For the write path's
 * statement (one per group of batches, a few hundred lines of SQL) that was about a sixth of its time in the database
 * (docs/performance.md); the issue list's reads by page keys (issueKeyRows) carry it too, their planning being most of
 * their cost. Only texts that never change may carry it: the name is given per distinct text.
 */
export const PREPARED = '/* prepared */ ';

/** Stands for one of a prepared look-up's arguments while its builder runs (prepared). */
class Argument {
  constructor(readonly index: number) {}
}

/**
 * A query built with Kysely, compiled once and marked PREPARED: for the look-ups every request makes (its session, its
 * organizations, an app's access, a token) and the issue page's, whose planning cost more than running them
 * (docs/performance.md). `build` runs at the first call only, with a stand-in for each argument; its text is kept
 * with the place of each argument among its parameters, and every call fills those in, to be run with
 * `db.executeQuery`. Building and compiling each call cost the collector ~25 µs and more garbage than running it
 * (docs/performance.md). So `build` must make one text whatever its arguments, using each only as a value.
 */
export function prepared<A extends unknown[], R>(
  build: (db: Kysely<Database>, ...args: A) => Compilable<R>,
): (db: Kysely<Database>, ...args: A) => CompiledQuery<R> {
  let text: string | undefined;
  // Each parameter: an argument's place, or a value of the builder's own.
  let parameters: Array<Argument | { value: unknown }> = [];
  return (db, ...args) => {
    if (text === undefined) {
      const compiled = build(db, ...(args.map((_, index) => new Argument(index)) as A)).compile();
      parameters = compiled.parameters.map((value) => (value instanceof Argument ? value : { value }));
      text = `${PREPARED}${compiled.sql}`;
    }
    return CompiledQuery.raw(
      text,
      parameters.map((parameter) => (parameter instanceof Argument ? args[parameter.index] : parameter.value)),
    ) as CompiledQuery<R>;
  };
}

/**
 * Like PREPARED, for a statement whose text is one of a family that a caller's choices can grow (the issue list's
 * statement: a text per sort, filters and cursor). The family's texts take at most MAX_FAMILY_TEXTS of the names, the
 * first ones asked for, so however many shapes are asked for first after a start, the fixed texts (the write
 * statement's above all) still find a name; past it a shape runs unprepared, as it would unmarked.
 */
export const PREPARED_SHAPE = '/* prepared shape */ ';

/**
 * Like PREPARED_SHAPE, for the issue list's searches: a family of its own, as a team's searches can take many shapes
 * (their terms' kinds), and would otherwise take the names that the list's other shapes need.
 */
export const PREPARED_SEARCH = '/* prepared search */ ';

const MAX_PREPARED_TEXTS = 80;
const MAX_FAMILY_TEXTS: ReadonlyMap<string, number> = new Map([
  [PREPARED_SHAPE, 32],
  [PREPARED_SEARCH, 16],
]);
const preparedNames = new Map<string, string>();
const familyNames = new Map<string, number>();

/** The family mark a text starts with, or PREPARED, or undefined for a statement that is not marked. */
function markOf(text: string): string | undefined {
  if (text.startsWith(PREPARED)) return PREPARED;
  for (const mark of MAX_FAMILY_TEXTS.keys()) if (text.startsWith(mark)) return mark;
  return undefined;
}

/** The name a marked statement is prepared under (the same for the same text), or undefined for any other statement. */
function preparedName(text: string): string | undefined {
  const mark = markOf(text);
  if (mark === undefined) return undefined;
  let name = preparedNames.get(text);
  // A bounded set, in case a marked text ever varied: past it, statements simply run unprepared.
  const named = familyNames.get(mark) ?? 0;
  if (
    name === undefined &&
    preparedNames.size < MAX_PREPARED_TEXTS &&
    named < (MAX_FAMILY_TEXTS.get(mark) ?? Infinity)
  ) {
    name = `collector_${preparedNames.size + 1}`;
    preparedNames.set(text, name);
    familyNames.set(mark, named + 1);
  }
  return name;
}

/**
 * The pool as Kysely sees it. Kysely releases a connection without saying whether its last query failed, so pg would
 * pool a client left mid-query by a read timeout and hand it to the next request. Here such a client refuses further
 * queries at once (with the error that broke it) and is destroyed on release instead of pooled.
 */
function discardingBrokenClients(pool: pg.Pool): PostgresPool {
  const broken = new WeakMap<pg.PoolClient, Error>();
  // One wrapper per pg client, so Kysely's own per-client bookkeeping sees the same object at every checkout.
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    const query = async (text: string, parameters: readonly unknown[]) => {
      const failure = broken.get(client);
      if (failure) throw failure;
      try {
        const name = preparedName(text);
        return await client.query(
          name === undefined
            ? { text, values: parameters as unknown[] }
            : { name, text, values: parameters as unknown[] },
        );
      } catch (error) {
        if (!leavesConnectionUsable(error))
          broken.set(client, error instanceof Error ? error : new Error(String(error)));
        throw error;
      }
    };
    return {
      // Cursors (streaming) are not used here; the overload is declared for Kysely's type only.
      query: query as unknown as PostgresPoolClient['query'],
      release: () => client.release(broken.get(client)),
    };
  };
  return {
    connect: async () => {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (!wrapper) {
        wrapper = wrap(client);
        wrappers.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
}

/** `close` runs once: a second call (a test that closed the handle, then its server's stop) waits for the first. */
function once(close: () => Promise<void>): () => Promise<void> {
  let closed: Promise<void> | undefined;
  return () => {
    closed ??= close();
    return closed;
  };
}

function openPostgres(options: OpenDatabaseOptions & { url: string }): DatabaseHandle {
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const types = {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === INT8 || oid === NUMERIC
        ? toNumber
        : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
  };
  const pool = new pg.Pool({
    connectionString: options.url,
    // A URL's own application_name wins over this one.
    application_name: 'collector',
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: timeouts.connectMs,
    // A database that stops answering must fail requests (503), not hold them: the server cancels a slow statement,
    // and the client gives up on a server that answers nothing at all (frozen, or the network gone).
    statement_timeout: timeouts.statementMs,
    query_timeout: timeouts.queryMs,
    // No JIT: every statement here is short, and the write statement, if its estimated cost ever passed
    // jit_above_cost, would spend 0.5 s compiling at every run (docs/performance.md). A URL's own options win.
    options: '-c jit=off',
    keepAlive: true,
    types,
  });
  // The readiness probe has connections of its own: it must neither wait behind requests for a pooled connection
  // nor leave its hung queries holding the requests' connections while the database is frozen.
  const probe = new pg.Pool({
    connectionString: options.url,
    application_name: 'collector',
    max: 1,
    connectionTimeoutMillis: timeouts.pingMs,
    query_timeout: timeouts.pingMs,
    keepAlive: true,
  });
  // Once closing, a lost connection is expected (the embedded server stops right after, while pg still ends its idle
  // clients): not reported. pg-pool hangs the whole client on the error; a log line needs none of it.
  let closing = false;
  const report = (error: Error & { client?: unknown }) => {
    if (closing) return;
    delete error.client;
    options.onConnectionError?.(error);
  };
  for (const each of [pool, probe]) {
    each.on('error', report);
    // A client checked out for a query emits 'error' itself when its connection drops; unheard, that ends the process.
    each.on('connect', (client) => client.on('error', report));
  }
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: discardingBrokenClients(pool) }) });
  return {
    db,
    backend: options.backend ?? 'postgres',
    ping: async () => {
      const client = await probe.connect();
      try {
        await client.query('select 1');
        client.release();
      } catch (error) {
        client.release(error instanceof Error ? error : true);
        throw error;
      }
    },
    close: once(async () => {
      closing = true;
      await Promise.all([db.destroy(), probe.end()]);
    }),
  };
}

async function openPglite(options: OpenDatabaseOptions): Promise<DatabaseHandle> {
  const dataDir = options.dataDir ?? 'memory://';
  if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true });
  // A jsonb parameter: a JsonbArray as its text, anything else to PGlite's own serializer. node-pg asks the value
  // itself (JsonbArray.toPostgres).
  const jsonb = pgliteTypes.serializers[pgliteTypes.JSONB];
  if (!jsonb) throw new Error('PGlite has no jsonb serializer to extend');
  const pglite = await PGlite.create(dataDir, {
    parsers: { [INT8]: toNumber, [NUMERIC]: toNumber },
    serializers: { [pgliteTypes.JSONB]: (value) => (value instanceof JsonbArray ? value.toString() : jsonb(value)) },
  });
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
  return {
    db,
    backend: 'pglite',
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: once(() => db.destroy()),
  };
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<DatabaseHandle> {
  return options.url ? openPostgres({ ...options, url: options.url }) : openPglite(options);
}
