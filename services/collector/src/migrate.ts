// `pnpm migrate`: brings the database up to date and exits; non-zero when a migration fails.
import { migrateDatabase, startEmbeddedPostgres } from '@collector/db';
import { parseEnv } from './env';

const env = parseEnv(process.env);
// Without DATABASE_URL the embedded server is started for the migration and stopped after it.
const embedded =
  env.databaseUrl || env.embedded === 'pglite' ? undefined : await startEmbeddedPostgres({ dataDir: env.dataDir });
try {
  const applied = await migrateDatabase({ url: env.databaseUrl ?? embedded?.url, dataDir: env.dataDir });
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'already up to date');
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await embedded?.stop();
}
