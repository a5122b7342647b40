// Opens the database: PostgreSQL through pg when a URL is given, otherwise embedded PostgreSQL (PGlite) in a folder.
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import type { Database } from './schema';

export type Backend = 'postgres' | 'embedded';

export interface DatabaseHandle {
  db: Kysely<Database>;
  backend: Backend;
  /** Succeeds when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** A PostgreSQL URL; without it the embedded database is used. */
  url?: string | undefined;
  /** Folder of the embedded database; `memory://` keeps it in memory. */
  dataDir?: string | undefined;
  maxConnections?: number | undefined;
  /** Errors of idle pooled connections (a PostgreSQL restart); without a listener pg would crash the process. */
  onConnectionError?: ((error: Error) => void) | undefined;
}

// int8 (counts, ms timestamps) and numeric (sums) as numbers, the one place both backends are normalised.
// Every value this schema holds stays below 2^53.
const INT8 = 20;
const NUMERIC = 1700;
const toNumber = (value: string) => Number(value);

function openPostgres(options: OpenDatabaseOptions & { url: string }): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: 5_000,
    // A database that stops answering must fail requests (503), not hold them forever.
    query_timeout: 10_000,
    statement_timeout: 10_000,
    keepAlive: true,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8 || oid === NUMERIC ? toNumber : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  const report = (error: Error) => options.onConnectionError?.(error);
  pool.on('error', report);
  // A client checked out for a query emits 'error' itself when its connection drops; unheard, that ends the process.
  pool.on('connect', (client) => client.on('error', report));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    backend: 'postgres',
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}

async function openEmbedded(options: OpenDatabaseOptions): Promise<DatabaseHandle> {
  const dataDir = options.dataDir ?? 'memory://';
  if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true });
  const pglite = await PGlite.create(dataDir, { parsers: { [INT8]: toNumber, [NUMERIC]: toNumber } });
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
  return {
    db,
    backend: 'embedded',
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<DatabaseHandle> {
  return options.url ? openPostgres({ ...options, url: options.url }) : openEmbedded(options);
}
