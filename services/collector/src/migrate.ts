// `pnpm migrate`: brings the database up to date and exits; non-zero when a migration fails.
import { migrateDatabase } from '@collector/db';
import { parseEnv } from './env';

const env = parseEnv(process.env);
try {
  const applied = await migrateDatabase({ url: env.databaseUrl, dataDir: env.dataDir });
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'already up to date');
} catch (error) {
  console.error(error);
  process.exitCode = 1;
}
