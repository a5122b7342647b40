// Databases for tests, with no system PostgreSQL needed. With TEST_DATABASE_URL every test file shares that database
// (migrated once by the global setup); without it the global setup starts one embedded PostgreSQL cluster (the
// default backend) with a migrated template, and each test file gets a fresh copy of it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
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
export async function setUpTestDatabases(provide: (cluster: { adminUrl: string; template: string } | undefined) => void): Promise<() => Promise<void>> {
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

/** A migrated database for this test file: TEST_DATABASE_URL, or a fresh copy of the embedded cluster's template. */
export async function testDatabaseUrl(): Promise<string> {
  if (process.env.TEST_DATABASE_URL) return process.env.TEST_DATABASE_URL;
  const cluster = inject('embeddedCluster');
  if (!cluster) throw new Error('no embedded test cluster: run the tests through vitest (its global setup starts one)');
  sequence += 1;
  const name = `test_${process.pid}_${Date.now().toString(36)}_${sequence}`;
  const admin = new pg.Client(cluster.adminUrl);
  await admin.connect();
  try {
    await admin.query(`create database ${name} template ${cluster.template}`);
  } finally {
    await admin.end();
  }
  const url = new URL(cluster.adminUrl);
  url.pathname = `/${name}`;
  return url.href;
}

/**
 * A new database with nothing in it (a migration's own test): in the embedded cluster, or beside TEST_DATABASE_URL's
 * database on its server.
 */
export async function emptyTestDatabaseUrl(): Promise<string> {
  const cluster = inject('embeddedCluster');
  const base = process.env.TEST_DATABASE_URL ?? cluster?.adminUrl;
  if (!base) throw new Error('no embedded test cluster: run the tests through vitest (its global setup starts one)');
  sequence += 1;
  const name = `test_empty_${process.pid}_${Date.now().toString(36)}_${sequence}`;
  const admin = new pg.Client(base);
  await admin.connect();
  try {
    await admin.query(`create database ${name} template template0`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.href;
}
