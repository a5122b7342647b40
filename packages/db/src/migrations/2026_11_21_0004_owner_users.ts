// Distinct anonymous ids over all of an account's apps, so the all-apps overview reads one counter instead of
// counting distinct ids over every app's users. Kept by the write path (ingest.ts). Frozen once landed.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // The fold below reads every stored event once; on a large database that takes longer than a request may.
  await sql`set local statement_timeout = 0`.execute(db);
  await db.schema
    .createTable('owner_users')
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('anonymous_id', 'text', (col) => col.notNull())
    // In how many of the owner's apps this id was seen: above 1, windowed totals over all apps must not count it twice.
    .addColumn('apps', 'int4', (col) => col.notNull())
    .addPrimaryKeyConstraint('owner_users_pkey', ['user_id', 'anonymous_id'])
    .execute();
  await sql`create index owner_users_shared on owner_users (user_id) include (anonymous_id) where apps > 1`.execute(db);

  await db.schema
    .createTable('owner_totals')
    .addColumn('user_id', 'text', (col) => col.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('users', 'int8', (col) => col.notNull())
    .execute();

  // Users stored before this migration, folded in once.
  await sql`
    insert into owner_users (user_id, anonymous_id, apps)
    select a.user_id, u.anonymous_id, count(*) from app_users u join apps a on a.app_key = u.app_key group by 1, 2`.execute(
    db,
  );
  await sql`insert into owner_totals (user_id, users) select user_id, count(*) from owner_users group by 1`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('owner_totals').ifExists().execute();
  await db.schema.dropTable('owner_users').ifExists().execute();
}
