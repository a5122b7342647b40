// A team's tracker: organizations and their members, passwords as one sign-in method among others, API tokens,
// invitations, password resets, the audit log, and issue assignment and history. Every existing user gets an
// organization of their own (they own it) and their apps move into it, so what each of them sees stays the same.
// Frozen once landed: the slug rule below is a copy, not an import, so this migration means the same SQL forever.
import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';

function slugify(name: string, fallback: string): string {
  const base = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 50)
    .replace(/-+$/, '');
  if (base === '') return fallback;
  if (/^\d+$/.test(base)) return `${fallback}-${base}`.slice(0, 50);
  return base;
}

function uniqueSlug(base: string, taken: Set<string>): string {
  let slug = base;
  for (let n = 2; taken.has(slug); n++) slug = `${base.slice(0, 50 - `-${n}`.length).replace(/-+$/, '')}-${n}`;
  taken.add(slug);
  return slug;
}

const randomId = (prefix: string) => `${prefix}_${randomBytes(16).toString('hex')}`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('slug', 'text', (col) => col.notNull().unique().check(sql`slug ~ '^[a-z0-9][a-z0-9-]{0,49}$'`))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('created_at', 'int8', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('memberships')
    .addColumn('org_id', 'text', (col) => col.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (col) => col.notNull().check(sql`role in ('owner', 'admin', 'member')`))
    .addColumn('created_at', 'int8', (col) => col.notNull())
    .addPrimaryKeyConstraint('memberships_pkey', ['org_id', 'user_id'])
    .execute();
  await db.schema.createIndex('memberships_user').on('memberships').column('user_id').execute();
  // "The caller's own organization": the one made for them, while they are still in it.
  await db.schema
    .alterTable('users')
    .addColumn('own_org_id', 'text', (col) => col.references('organizations.id').onDelete('set null'))
    .execute();

  // A password is one way to sign in, kept apart from the user, so that others (SSO) can join it later.
  await db.schema
    .createTable('user_passwords')
    .addColumn('user_id', 'text', (col) => col.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('hash', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'int8', (col) => col.notNull())
    .execute();
  await sql`insert into user_passwords (user_id, hash, updated_at) select id, password_hash, created_at from users`.execute(
    db,
  );
  // No longer read; nullable (not dropped) because fixtures and tools that insert users by hand still write it.
  await sql`alter table users alter column password_hash drop not null`.execute(db);
  await sql`update users set password_hash = null`.execute(db);

  // Apps gain their organization and a slug unique in it. Nullable only for rows inserted by hand without them
  // (test fixtures, tools): the API always sets both, and an app without an organization is visible to no one.
  await db.schema
    .alterTable('apps')
    .addColumn('org_id', 'text', (col) => col.references('organizations.id').onDelete('cascade'))
    .execute();
  await db.schema
    .alterTable('apps')
    .addColumn('slug', 'text', (col) => col.check(sql`slug ~ '^[a-z0-9][a-z0-9-]{0,49}$' and slug !~ '^[0-9]+$'`))
    .execute();
  await db.schema.createIndex('apps_org_slug').on('apps').columns(['org_id', 'slug']).unique().execute();

  const orgSlugs = new Set<string>();
  const users = await sql<{ id: string; email: string; created_at: number }>`
    select id, email, created_at from users order by created_at, id`.execute(db);
  for (const user of users.rows) {
    const orgId = randomId('org');
    const slug = uniqueSlug(slugify(user.email.split('@')[0] ?? '', 'org'), orgSlugs);
    await sql`insert into organizations (id, slug, name, created_at) values (${orgId}, ${slug}, ${user.email}, ${user.created_at})`.execute(
      db,
    );
    await sql`insert into memberships (org_id, user_id, role, created_at) values (${orgId}, ${user.id}, 'owner', ${user.created_at})`.execute(
      db,
    );
    await sql`update users set own_org_id = ${orgId} where id = ${user.id}`.execute(db);
    const apps = await sql<{ app_key: string; name: string }>`
      select app_key, name from apps where user_id = ${user.id} order by created_at, app_key`.execute(db);
    const appSlugs = new Set<string>();
    for (const app of apps.rows) {
      const appSlug = uniqueSlug(slugify(app.name, 'app'), appSlugs);
      await sql`update apps set org_id = ${orgId}, slug = ${appSlug} where app_key = ${app.app_key}`.execute(db);
    }
  }

  // API tokens: a user token (user_id) acts as its user, an org token (org_id) belongs to the organization.
  await db.schema
    .createTable('api_tokens')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('hash', 'text', (col) => col.notNull().unique())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('user_id', 'text', (col) => col.references('users.id').onDelete('cascade'))
    .addColumn('org_id', 'text', (col) => col.references('organizations.id').onDelete('cascade'))
    .addColumn('created_by', 'text', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('scopes', 'jsonb', (col) => col.notNull())
    .addColumn('created_at', 'int8', (col) => col.notNull())
    .addColumn('last_used_at', 'int8')
    .addColumn('expires_at', 'int8')
    .addCheckConstraint('api_tokens_owner', sql`(user_id is null) <> (org_id is null)`)
    .execute();
  await db.schema.createIndex('api_tokens_user').on('api_tokens').column('user_id').execute();
  await db.schema.createIndex('api_tokens_org').on('api_tokens').column('org_id').execute();

  await db.schema
    .createTable('invitations')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('hash', 'text', (col) => col.notNull().unique())
    .addColumn('org_id', 'text', (col) => col.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('email', 'text', (col) => col.notNull())
    .addColumn('role', 'text', (col) => col.notNull().check(sql`role in ('owner', 'admin', 'member')`))
    .addColumn('created_by', 'text', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'int8', (col) => col.notNull())
    .addColumn('expires_at', 'int8', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('invitations_org').on('invitations').column('org_id').execute();

  await db.schema
    .createTable('password_resets')
    .addColumn('hash', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'int8', (col) => col.notNull())
    .addColumn('expires_at', 'int8', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('password_resets_user').on('password_resets').column('user_id').execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'int8', (col) => col.generatedAlwaysAsIdentity().primaryKey())
    .addColumn('org_id', 'text', (col) => col.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('action', 'text', (col) => col.notNull())
    // Kept as text, not a reference: the entry outlives the account or token it names.
    .addColumn('actor', 'text', (col) => col.notNull())
    .addColumn('target', 'text', (col) => col.notNull())
    .addColumn('at', 'int8', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('audit_log_org').on('audit_log').columns(['org_id', 'id desc']).execute();

  // Apart from issues (which the write path updates for every event): who an issue is assigned to, and its history.
  await db.schema
    .createTable('issue_assignees')
    .addColumn('app_key', 'text', (col) => col.notNull().references('apps.app_key').onDelete('cascade'))
    .addColumn('fingerprint', 'text', (col) => col.notNull())
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('assigned_at', 'int8', (col) => col.notNull())
    .addPrimaryKeyConstraint('issue_assignees_pkey', ['app_key', 'fingerprint'])
    .execute();
  await db.schema.createIndex('issue_assignees_user').on('issue_assignees').column('user_id').execute();
  await db.schema
    .createTable('issue_history')
    .addColumn('id', 'int8', (col) => col.generatedAlwaysAsIdentity().primaryKey())
    .addColumn('app_key', 'text', (col) => col.notNull().references('apps.app_key').onDelete('cascade'))
    .addColumn('fingerprint', 'text', (col) => col.notNull())
    .addColumn('type', 'text', (col) => col.notNull().check(sql`type in ('status', 'assignee', 'comment')`))
    .addColumn('actor_id', 'text', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('data', 'jsonb', (col) => col.notNull())
    .addColumn('at', 'int8', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('issue_history_issue')
    .on('issue_history')
    .columns(['app_key', 'fingerprint', 'id desc'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'issue_history',
    'issue_assignees',
    'audit_log',
    'password_resets',
    'invitations',
    'api_tokens',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
  await sql`update users u set password_hash = p.hash from user_passwords p where p.user_id = u.id`.execute(db);
  await db.schema.dropTable('user_passwords').execute();
  await db.schema.alterTable('apps').dropColumn('slug').execute();
  await db.schema.alterTable('apps').dropColumn('org_id').execute();
  await db.schema.alterTable('users').dropColumn('own_org_id').execute();
  await db.schema.dropTable('memberships').execute();
  await db.schema.dropTable('organizations').execute();
}
