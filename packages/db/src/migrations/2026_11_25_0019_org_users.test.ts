// Migration 0019 on a database made before it: an organization whose apps two members made counts an id seen in both
// apps once (the per-account counter it replaces counted it once per maker), and down brings the per-account counter
// back.
import { Migrator, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyTestDatabaseUrl } from '../../test/database';
import { openDatabase } from '../connection';
import { migrateToLatest } from '../migrate';
import { migrations } from '.';

const database = await openDatabase({ url: await emptyTestDatabaseUrl() });
afterAll(() => database.close());
const db = database.db;

describe('migration 0019: distinct users per organization', () => {
  it('counts the ids of an organization whose apps several members made once, and goes down again', async () => {
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    expect((await migrator.migrateTo('2026_11_25_0018_organizations')).error).toBeUndefined();
    await sql`insert into organizations (id, slug, name, created_at) values ('org_team', 'team', 'Team', 0)`.execute(
      db,
    );
    for (const user of ['user_a', 'user_b']) {
      await sql`insert into users (id, email, created_at) values (${user}, ${`${user}@example.com`}, 0)`.execute(db);
      await sql`insert into apps (app_key, user_id, org_id, slug, name, type, created_at, public_key)
        values (${`web_${user}`}, ${user}, 'org_team', ${`app-${user.slice(-1)}`}, ${user}, 'web', 0, ${user === 'user_a' ? 'a'.repeat(32) : 'b'.repeat(32)})`.execute(
        db,
      );
    }
    // anon_both in both apps, anon_a in one: two distinct ids for the organization.
    await sql`insert into app_users (app_key, anonymous_id) values
      ('web_user_a', 'anon_both'), ('web_user_b', 'anon_both'), ('web_user_a', 'anon_a')`.execute(db);

    await migrateToLatest(db);
    expect(
      (await sql<{ users: number }>`select users from org_totals where org_id = 'org_team'`.execute(db)).rows,
    ).toEqual([{ users: 2 }]);
    expect(
      (
        await sql<{ anonymous_id: string; apps: number }>`
          select anonymous_id, apps from org_users where org_id = 'org_team' order by 1`.execute(db)
      ).rows,
    ).toEqual([
      { anonymous_id: 'anon_a', apps: 1 },
      { anonymous_id: 'anon_both', apps: 2 },
    ]);

    expect((await migrator.migrateTo('2026_11_25_0018_organizations')).error).toBeUndefined();
    expect(
      (await sql<{ user_id: string; users: number }>`select user_id, users from owner_totals order by 1`.execute(db))
        .rows,
    ).toEqual([
      { user_id: 'user_a', users: 2 },
      { user_id: 'user_b', users: 1 },
    ]);
    await migrateToLatest(db);
  });
});
