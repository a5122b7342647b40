// Alerts: rules per app, the outbox of deliveries the write path fills in the same statement as the events that
// caused them, and the per-issue per-minute counts (kept only for apps with a spike rule) that spikes are judged on.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('alerts')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('app_key', 'text', (col) => col.notNull().references('apps.app_key').onDelete('cascade'))
    .addColumn('trigger', 'text', (col) => col.notNull().check(sql`trigger in ('new_issue', 'regression', 'spike')`))
    .addColumn('spike_events', 'int4')
    .addColumn('spike_minutes', 'int4')
    .addColumn('channel', 'jsonb', (col) => col.notNull())
    .addColumn('secret', 'text', (col) => col.notNull())
    .addColumn('created_at', 'int8', (col) => col.notNull())
    .addCheckConstraint(
      'alerts_spike_check',
      sql`(trigger = 'spike') = (spike_events is not null and spike_minutes is not null)`,
    )
    .execute();
  // The write path looks rules up by app and trigger for every issue it touches.
  await db.schema.createIndex('alerts_app_trigger').on('alerts').columns(['app_key', 'trigger']).execute();

  // The outbox: one row per (rule, issue, trigger) to deliver, and then its delivery's record.
  await db.schema
    .createTable('alert_deliveries')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('alert_id', 'text', (col) => col.notNull().references('alerts.id').onDelete('cascade'))
    .addColumn('app_key', 'text', (col) => col.notNull())
    .addColumn('fingerprint', 'text')
    .addColumn('trigger', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) =>
      col.notNull().defaultTo('pending').check(sql`status in ('pending', 'delivered', 'failed')`),
    )
    .addColumn('attempts', 'int4', (col) => col.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'int8', (col) => col.notNull())
    .addColumn('delivered_at', 'int8')
    .addColumn('next_attempt_at', 'int8', (col) => col.notNull())
    // A worker that took the delivery holds it until then; past it (the worker died), another may take it.
    .addColumn('leased_until', 'int8')
    .execute();
  await sql`create index alert_deliveries_due on alert_deliveries (next_attempt_at) where status = 'pending'`.execute(
    db,
  );
  await db.schema
    .createIndex('alert_deliveries_app_created')
    .on('alert_deliveries')
    .columns(['app_key', 'created_at desc'])
    .execute();
  await db.schema.createIndex('alert_deliveries_alert').on('alert_deliveries').column('alert_id').execute();

  // Events per issue and minute of receipt, for apps with a spike rule only.
  await db.schema
    .createTable('issue_minutes')
    .addColumn('app_key', 'text', (col) => col.notNull())
    .addColumn('fingerprint', 'text', (col) => col.notNull())
    .addColumn('minute', 'int4', (col) => col.notNull())
    .addColumn('events', 'int4', (col) => col.notNull())
    .addPrimaryKeyConstraint('issue_minutes_pkey', ['app_key', 'fingerprint', 'minute'])
    .execute();
  await db.schema.createIndex('issue_minutes_minute').on('issue_minutes').column('minute').execute();

  // When a spike rule last fired for an issue: the upsert that fires it again only once its window has passed is what
  // keeps it to one alert per issue per window, even with statements on the same issue at once.
  await db.schema
    .createTable('alert_spikes')
    .addColumn('alert_id', 'text', (col) => col.notNull().references('alerts.id').onDelete('cascade'))
    .addColumn('fingerprint', 'text', (col) => col.notNull())
    .addColumn('fired_at', 'int8', (col) => col.notNull())
    .addColumn('window_ms', 'int8', (col) => col.notNull())
    .addPrimaryKeyConstraint('alert_spikes_pkey', ['alert_id', 'fingerprint'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['alert_spikes', 'issue_minutes', 'alert_deliveries', 'alerts'])
    await db.schema.dropTable(table).ifExists().execute();
}
