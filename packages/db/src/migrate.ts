import { type Kysely, type MigrationProvider, Migrator } from 'kysely';
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
