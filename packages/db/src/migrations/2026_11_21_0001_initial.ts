// Users, sessions, apps, events, issues and the counters the dashboard reads. Frozen once landed.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('email', 'text', (col) => col.notNull().unique())
    .addColumn('password_hash', 'text', (col) => col.notNull())
    .addColumn('created_at', 'int8', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'int8', (col) => col.notNull())
    .addColumn('expires_at', 'int8', (col) => col.notNull())
    .addColumn('absolute_expires_at', 'int8', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('sessions_user_id').on('sessions').column('user_id').execute();

  await db.schema
    .createTable('apps')
    .addColumn('app_key', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('type', 'text', (col) => col.notNull())
    .addColumn('created_at', 'int8', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('apps_user_id_created_at')
    .on('apps')
    .columns(['user_id', 'created_at', 'app_key'])
    .execute();

  await db.schema
    .createTable('app_totals')
    .addColumn('app_key', 'text', (col) => col.primaryKey().references('apps.app_key').onDelete('cascade'))
    .addColumn('events', 'int8', (col) => col.notNull().defaultTo(0))
    .addColumn('errors', 'int8', (col) => col.notNull().defaultTo(0))
    .addColumn('failed_requests', 'int8', (col) => col.notNull().defaultTo(0))
    .addColumn('issues', 'int8', (col) => col.notNull().defaultTo(0))
    .addColumn('users', 'int8', (col) => col.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('events')
    .addColumn('app_key', 'text', (col) => col.notNull().references('apps.app_key').onDelete('cascade'))
    .addColumn('event_id', 'text', (col) => col.notNull())
    .addColumn('fingerprint', 'text', (col) => col.notNull())
    .addColumn('type', 'text', (col) => col.notNull())
    .addColumn('timestamp', 'int8', (col) => col.notNull())
    .addColumn('received_at', 'int8', (col) => col.notNull())
    .addColumn('anonymous_id', 'text')
    .addColumn('payload', 'jsonb', (col) => col.notNull())
    .addPrimaryKeyConstraint('events_pkey', ['app_key', 'event_id'])
    .execute();
  // Issue detail: an issue's events, newest first.
  await sql`create index events_issue_timestamp on events (app_key, fingerprint, timestamp desc, event_id desc)`.execute(
    db,
  );
  // Overview over a time window.
  await db.schema.createIndex('events_app_timestamp').on('events').columns(['app_key', 'timestamp']).execute();

  await db.schema
    .createTable('issues')
    .addColumn('app_key', 'text', (col) => col.notNull().references('apps.app_key').onDelete('cascade'))
    .addColumn('fingerprint', 'text', (col) => col.notNull())
    .addColumn('message', 'text', (col) => col.notNull())
    .addColumn('error_type', 'text', (col) => col.notNull())
    .addColumn('event_count', 'int8', (col) => col.notNull())
    .addColumn('user_count', 'int8', (col) => col.notNull().defaultTo(0))
    .addColumn('first_seen_at', 'int8', (col) => col.notNull())
    .addColumn('last_seen_at', 'int8', (col) => col.notNull())
    .addPrimaryKeyConstraint('issues_pkey', ['app_key', 'fingerprint'])
    .execute();
  // Issue list: newest lastSeenAt first, keyset paging on (last_seen_at, app_key, fingerprint).
  await sql`create index issues_app_last_seen on issues (app_key, last_seen_at desc, fingerprint desc)`.execute(db);

  await db.schema
    .createTable('issue_users')
    // Written before the issue row in the ingesting transaction, so it references the app rather than the issue.
    .addColumn('app_key', 'text', (col) => col.notNull().references('apps.app_key').onDelete('cascade'))
    .addColumn('fingerprint', 'text', (col) => col.notNull())
    .addColumn('anonymous_id', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('issue_users_pkey', ['app_key', 'fingerprint', 'anonymous_id'])
    .execute();

  await db.schema
    .createTable('app_users')
    .addColumn('app_key', 'text', (col) => col.notNull().references('apps.app_key').onDelete('cascade'))
    .addColumn('anonymous_id', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('app_users_pkey', ['app_key', 'anonymous_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['app_users', 'issue_users', 'issues', 'events', 'app_totals', 'apps', 'sessions', 'users']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
