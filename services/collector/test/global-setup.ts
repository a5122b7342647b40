// With TEST_DATABASE_URL, every test file shares that PostgreSQL database: migrate it once here.
// Without it each test file runs on its own in-memory embedded database, migrated at start.
import { migrateToLatest, openDatabase } from '@collector/db';

export default async function setup() {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return;
  const database = await openDatabase({ url });
  try {
    await migrateToLatest(database.db);
  } finally {
    await database.close();
  }
}
