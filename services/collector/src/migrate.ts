// `pnpm migrate`: brings the database up to date and exits; non-zero when a migration fails.
import { migrateToLatest, openDatabase } from '@collector/db';
import { parseEnv } from './env';

const env = parseEnv(process.env);
const database = await openDatabase({ url: env.databaseUrl, dataDir: env.dataDir });
try {
  const applied = await migrateToLatest(database.db);
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'already up to date');
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await database.close();
}
