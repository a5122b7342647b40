import { type Kysely, type MigrationProvider, Migrator } from 'kysely';
import { openDatabase } from './connection';
import { migrations } from './migrations';
import type { Database } from './schema';

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Brings the schema up to date; throws (so a migrate command exits non-zero) when a migration fails. */
export async function migrateToLatest(db: Kysely<Database>): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  const { error, results = [] } = await migrator.migrateToLatest();
  const failed = results.find((result) => result.status === 'Error');
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed`.replace('  ', ' '), { cause: error });
  }
  return results.map((result) => result.migrationName);
}

/**
 * Opens the database only to migrate it, then closes it. On PostgreSQL the connection has no statement or read
 * timeout: those guard requests (a few seconds), and a migration over a large table may rightly take longer.
 */
export async function migrateDatabase(options: {
  url?: string | undefined;
  dataDir?: string | undefined;
}): Promise<string[]> {
  const database = await openDatabase({ ...options, maxConnections: 1, timeouts: { statementMs: 0, queryMs: 0 } });
  try {
    return await migrateToLatest(database.db);
  } finally {
    await database.close();
  }
}
