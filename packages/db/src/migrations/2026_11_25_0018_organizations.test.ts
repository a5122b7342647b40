// Migration 0018 on a database that 0016 left with users and apps: every user gets an organization of their own
// (owner), with a slug from their e-mail made unique; their apps move into it with slugs from their names, unique in
// it and never all digits; passwords move to user_passwords; down puts them back. On a fresh, empty database.
import { Migrator, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyTestDatabaseUrl } from '../../test/database';
import { openDatabase } from '../connection';
import { migrations } from './index';

const database = await openDatabase({ url: await emptyTestDatabaseUrl() });
afterAll(() => database.close());
const db = database.db;
const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });

describe('migration 0018: organizations', () => {
  it('gives every user an organization of their own with their apps, and goes back', async () => {
    expect((await migrator.migrateTo('2026_11_23_0016_issues_hot_updates')).error).toBeUndefined();
    // Two users whose e-mails make the same slug; one has apps whose names collide or are all digits.
    await sql`insert into users (id, email, password_hash, created_at) values
      ('user_a', 'shop@one.example', '$argon2id$a', 1), ('user_b', 'shop@two.example', '$argon2id$b', 2)`.execute(db);
    await sql`insert into apps (app_key, user_id, name, type, created_at, public_key) values
      ('web_a1', 'user_a', 'Shop', 'web', 10, ${'a'.repeat(32)}),
      ('web_a2', 'user_a', 'shop!', 'web', 11, ${'b'.repeat(32)}),
      ('web_a3', 'user_a', '2024', 'web', 12, ${'c'.repeat(32)}),
      ('web_b1', 'user_b', 'Shop', 'web', 13, ${'d'.repeat(32)})`.execute(db);

    expect((await migrator.migrateTo('2026_11_25_0018_organizations')).error).toBeUndefined();
    const { rows: orgs } = await sql<{ user_id: string; slug: string; role: string; own: boolean }>`
      select m.user_id, o.slug, m.role, u.own_org_id = o.id as own
      from memberships m join organizations o on o.id = m.org_id join users u on u.id = m.user_id order by m.user_id`.execute(
      db,
    );
    expect(orgs).toEqual([
      { user_id: 'user_a', slug: 'shop', role: 'owner', own: true },
      { user_id: 'user_b', slug: 'shop-2', role: 'owner', own: true },
    ]);
    const { rows: apps } = await sql<{ app_key: string; slug: string; org: string }>`
      select a.app_key, a.slug, o.slug as org from apps a join organizations o on o.id = a.org_id order by a.app_key`.execute(
      db,
    );
    expect(apps).toEqual([
      { app_key: 'web_a1', slug: 'shop', org: 'shop' },
      { app_key: 'web_a2', slug: 'shop-2', org: 'shop' },
      { app_key: 'web_a3', slug: 'app-2024', org: 'shop' },
      { app_key: 'web_b1', slug: 'shop', org: 'shop-2' },
    ]);
    const { rows: passwords } = await sql<{ user_id: string; hash: string }>`
      select user_id, hash from user_passwords order by user_id`.execute(db);
    expect(passwords).toEqual([
      { user_id: 'user_a', hash: '$argon2id$a' },
      { user_id: 'user_b', hash: '$argon2id$b' },
    ]);

    expect((await migrator.migrateTo('2026_11_23_0016_issues_hot_updates')).error).toBeUndefined();
    const { rows: restored } = await sql<{ id: string; password_hash: string }>`
      select id, password_hash from users order by id`.execute(db);
    expect(restored).toEqual([
      { id: 'user_a', password_hash: '$argon2id$a' },
      { id: 'user_b', password_hash: '$argon2id$b' },
    ]);
  });
});
