// Migration 0009 on a database that already holds apps: each gets a random public key and a project id of its own.
// Always a fresh, empty database (stopped at the migration before 0009), on either backend.
import { Migrator } from 'kysely';
import { afterAll, expect, it } from 'vitest';
import { emptyTestDatabaseUrl } from '../../test/database';
import { openDatabase } from '../connection';
import { migrateToLatest } from '../migrate';
import { migrations } from './index';

const database = await openDatabase({ url: await emptyTestDatabaseUrl() });
afterAll(() => database.close());

it('gives apps created before it a public key and a project id, and new apps theirs', async () => {
  const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } });
  const before = Object.keys(migrations).filter((name) => name < '2026_11_23_0009');
  const { error } = await migrator.migrateTo(before.at(-1) as string);
  expect(error).toBeUndefined();
  const db = database.db as unknown as import('kysely').Kysely<any>;
  await db
    .insertInto('users')
    .values({ id: 'user_a', email: 'a@example.com', password_hash: '-', created_at: 0 })
    .execute();
  for (const key of ['web_one', 'node_two', 'ios_three']) {
    await db
      .insertInto('apps')
      .values({ app_key: key, user_id: 'user_a', name: key, type: 'web', created_at: 1 })
      .execute();
  }

  await migrateToLatest(database.db);

  const rows = await database.db
    .selectFrom('apps')
    .select(['app_key', 'public_key', 'project_id'])
    .orderBy('project_id')
    .execute();
  expect(rows).toHaveLength(3);
  for (const row of rows) {
    expect(row.public_key).toMatch(/^[0-9a-f]{32}$/);
    expect(Number.isInteger(row.project_id) && row.project_id > 0).toBe(true);
  }
  expect(new Set(rows.map((row) => row.public_key)).size).toBe(3);
  expect(new Set(rows.map((row) => row.project_id)).size).toBe(3);

  const created = await database.db
    .insertInto('apps')
    .values({
      app_key: 'web_four',
      user_id: 'user_a',
      name: 'four',
      type: 'web',
      created_at: 2,
      public_key: 'f'.repeat(32),
    })
    .returning('project_id')
    .executeTakeFirstOrThrow();
  expect(created.project_id).toBeGreaterThan(Math.max(...rows.map((row) => row.project_id)));
  // The key's form is held by the database too, and it is unique.
  await expect(
    database.db
      .insertInto('apps')
      .values({
        app_key: 'web_five',
        user_id: 'user_a',
        name: 'five',
        type: 'web',
        created_at: 2,
        public_key: 'F'.repeat(32),
      })
      .execute(),
  ).rejects.toThrow();
  await expect(
    database.db
      .insertInto('apps')
      .values({
        app_key: 'web_six',
        user_id: 'user_a',
        name: 'six',
        type: 'web',
        created_at: 2,
        public_key: 'f'.repeat(32),
      })
      .execute(),
  ).rejects.toThrow();
});
