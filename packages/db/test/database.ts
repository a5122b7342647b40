// Databases for tests, with no system PostgreSQL needed. With TEST_DATABASE_URL every test file shares that database
// (migrated once by the global setup); without it the global setup starts one embedded PostgreSQL cluster (the
// default backend) with a migrated template, and each test file gets a fresh copy of it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { openDatabase } from '../src/connection';
import { startEmbeddedPostgres } from '../src/embedded-postgres';
import { migrateDatabase, migrateToLatest } from '../src/migrate';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set by the global setup when tests run on the embedded backend. */
    embeddedCluster: { adminUrl: string; template: string } | undefined;
  }
}

/** Which backend this run exercises: the embedded default unless TEST_DATABASE_URL names a PostgreSQL database. */
export const testBackend: 'postgres' | 'embedded' = process.env.TEST_DATABASE_URL ? 'postgres' : 'embedded';

const TEMPLATE = 'collector_template';

/** For the global setup: migrates TEST_DATABASE_URL, or starts the embedded cluster. Returns the teardown. */
export async function setUpTestDatabases(
  provide: (cluster: { adminUrl: string; template: string } | undefined) => void,
): Promise<() => Promise<void>> {
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    const database = await openDatabase({ url });
    try {
      await migrateToLatest(database.db);
    } finally {
      await database.close();
    }
    provide(undefined);
    return async () => undefined;
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'collector-test-cluster-'));
  const cluster = await startEmbeddedPostgres({ dataDir, durable: false });
  const admin = new pg.Client(cluster.urlFor('postgres'));
  await admin.connect();
  try {
    await admin.query(`create database ${TEMPLATE}`);
  } finally {
    await admin.end();
  }
  await migrateDatabase({ url: cluster.urlFor(TEMPLATE) });
  provide({ adminUrl: cluster.urlFor('postgres'), template: TEMPLATE });
  return async () => {
    await cluster.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
}

let sequence = 0;

/** Creates database `<prefix>_<pid>_<time>_<n>` from a template on the server of `serverUrl`; its URL. */
async function createDatabase(
  serverUrl: string,
  prefix: string,
  template: string,
): Promise<{ name: string; url: string }> {
  sequence += 1;
  const name = `${prefix}_${process.pid}_${Date.now().toString(36)}_${sequence}`;
  const admin = new pg.Client(serverUrl);
  await admin.connect();
  try {
    await admin.query(`create database ${name} template ${template}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { name, url: url.href };
}

/** A migrated database for this test file: TEST_DATABASE_URL, or a fresh copy of the embedded cluster's template. */
export async function testDatabaseUrl(): Promise<string> {
  if (process.env.TEST_DATABASE_URL) return process.env.TEST_DATABASE_URL;
  const cluster = inject('embeddedCluster');
  if (!cluster) throw new Error('no embedded test cluster: run the tests through vitest (its global setup starts one)');
  return (await createDatabase(cluster.adminUrl, 'test', cluster.template)).url;
}

/**
 * A new database with nothing in it (a migration's own test): in the embedded cluster, or beside TEST_DATABASE_URL's
 * database on its server.
 */
export async function emptyTestDatabaseUrl(): Promise<string> {
  const server = process.env.TEST_DATABASE_URL || inject('embeddedCluster')?.adminUrl; // CI sets it empty for the embedded run
  if (!server) throw new Error('no embedded test cluster: run the tests through vitest (its global setup starts one)');
  const { name, url } = await createDatabase(server, 'test_empty', 'template0');
  // On a PostgreSQL of the machine it would outlive the run (the embedded cluster goes with its folder).
  if (process.env.TEST_DATABASE_URL) {
    afterAll(async () => {
      const dropper = new pg.Client(server);
      await dropper.connect();
      try {
        await dropper.query(`drop database if exists ${name} with (force)`);
      } finally {
        await dropper.end();
      }
    });
  }
  return url;
}

/**
 * User `userId` and a web app of theirs, `appKey`, written by raw SQL with the first migration's columns only: a
 * migration's test runs on a schema older than the one the typed helpers (insertApp) write. `publicKey` for a schema
 * of migration 0009 or later, where every app has one (unique).
 */
export async function insertUserAndApp(
  db: Kysely<any>,
  userId: string,
  appKey: string,
  options: { publicKey?: string } = {},
): Promise<void> {
  await sql`insert into users (id, email, password_hash, created_at)
    values (${userId}, ${`${userId}@example.com`}, '-', 0)`.execute(db);
  if (options.publicKey === undefined)
    await sql`insert into apps (app_key, user_id, name, type, created_at)
      values (${appKey}, ${userId}, ${appKey}, 'web', 0)`.execute(db);
  else
    await sql`insert into apps (app_key, user_id, name, type, created_at, public_key)
      values (${appKey}, ${userId}, ${appKey}, 'web', 0, ${options.publicKey})`.execute(db);
}
