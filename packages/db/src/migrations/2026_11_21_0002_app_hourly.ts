// Per-app hourly counts, kept in the ingesting transaction, so charts of events over time never scan events.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('app_hourly')
    .addColumn('app_key', 'text', (col) => col.notNull().references('apps.app_key').onDelete('cascade'))
    .addColumn('hour_start', 'int8', (col) => col.notNull())
    .addColumn('events', 'int8', (col) => col.notNull())
    .addColumn('errors', 'int8', (col) => col.notNull())
    .addColumn('failed_requests', 'int8', (col) => col.notNull())
    .addPrimaryKeyConstraint('app_hourly_pkey', ['app_key', 'hour_start'])
    .execute();
  // Events stored before this migration, folded in once.
  await sql`
    insert into app_hourly (app_key, hour_start, events, errors, failed_requests)
    select app_key, (timestamp / 3600000) * 3600000, count(*), count(*) filter (where type = 'error'), count(*) filter (where type = 'request')
    from events group by 1, 2`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('app_hourly').ifExists().execute();
}
