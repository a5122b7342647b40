// Bounded disk (RETENTION_DAYS, MAX_EVENTS_PER_ISSUE) and outcomes. Frozen once landed.
//
// events becomes a table partitioned by UTC day of `timestamp`: retention drops whole days (one catalog change each,
// no row-by-row delete, no vacuum debt) and deletes row by row only the day that straddles the cut-off and the default
// partition (events whose day has no partition yet). A partitioned table cannot keep (app_key, event_id) unique across
// days, so deduplication moves to event_ids: one small row per event id, kept at least 30 days after the event's
// timestamp even when its payload is gone (retention, or the cap per issue), so a retry is still a duplicate.
// The write path inserts into event_ids first (ON CONFLICT DO NOTHING RETURNING) and stores the events it returns.
//
// outcomes counts, per app and UTC hour of receipt, what happened to the events apps sent (accepted, duplicate,
// invalid, rate_limited, too_large, unsupported). issue_payload_trims remembers each issue's event count when its
// payloads were last cut to the cap, and the cap, so the cap revisits only issues that grew since (or a lower cap).
import { type Kysely, sql } from 'kysely';

const DAY = 86_400_000;

/** events_2026_11_23: the partition of that UTC day (the retention job parses the same name). */
function partitionName(day: number): string {
  return `events_${new Date(day * DAY).toISOString().slice(0, 10).replaceAll('-', '_')}`;
}

export async function up(db: Kysely<any>): Promise<void> {
  // Copies every stored event once; on a large database that takes longer than a request may.
  await sql`set local statement_timeout = 0`.execute(db);

  await db.schema
    .createTable('event_ids')
    .addColumn('app_key', 'text', (col) => col.notNull().references('apps.app_key').onDelete('cascade'))
    .addColumn('event_id', 'text', (col) => col.notNull())
    // UTC day of the event's timestamp (ms / 86,400,000): the id is forgotten some days after it (retention job).
    .addColumn('day', 'int4', (col) => col.notNull())
    .addPrimaryKeyConstraint('event_ids_pkey', ['app_key', 'event_id'])
    .execute();
  await sql`create index event_ids_day on event_ids (day)`.execute(db);
  await sql`insert into event_ids (app_key, event_id, day) select app_key, event_id, (timestamp / ${DAY})::int4 from events`.execute(
    db,
  );

  // Columns, defaults and indexes are copied from the table as it is (earlier migrations of this release may have added
  // some), so this migration does not need to know them all.
  const { rows: indexes } = await sql<{ name: string; definition: string }>`
    select indexname as name, indexdef as definition from pg_indexes where schemaname = current_schema() and tablename = 'events'
    and indexname <> 'events_pkey'`.execute(db);
  await sql`alter table events rename to events_unpartitioned`.execute(db);
  await sql`create table events (like events_unpartitioned including defaults including constraints) partition by range (timestamp)`.execute(
    db,
  );
  await sql`alter table events add foreign key (app_key) references apps (app_key) on delete cascade`.execute(db);
  // Whatever no day's partition takes (a day not created yet): inserts never fail for want of a partition.
  await sql`create table events_default partition of events default`.execute(db);
  const { rows } = await sql<{
    day: number;
  }>`select distinct (timestamp / ${DAY})::int4 as day from events_unpartitioned`.execute(db);
  const today = Math.floor(Date.now() / DAY);
  const days = new Set(rows.map((row) => Number(row.day)));
  // The days events can arrive for from now on (30 days back, a little ahead); the retention job keeps this up.
  for (let day = today - 31; day <= today + 2; day++) days.add(day);
  for (const day of [...days].sort((a, b) => a - b)) {
    if (day < 0 || day > 2_932_896) continue; // outside years 1970..9999: left to the default partition
    await sql`create table ${sql.id(partitionName(day))} partition of events for values from (${sql.lit(day * DAY)}) to (${sql.lit((day + 1) * DAY)})`.execute(
      db,
    );
  }
  await sql`insert into events select * from events_unpartitioned`.execute(db);
  await sql`drop table events_unpartitioned`.execute(db);
  // The same indexes (0001's and 0005's, and any added since), now one per partition: a new partition gets them too.
  for (const index of indexes) {
    // Read before the rename, so each names the new table.
    await sql.raw(index.definition).execute(db);
  }

  await db.schema
    .createTable('outcomes')
    .addColumn('app_key', 'text', (col) => col.notNull().references('apps.app_key').onDelete('cascade'))
    // UTC hour of receipt, ms.
    .addColumn('hour_start', 'int8', (col) => col.notNull())
    .addColumn('reason', 'text', (col) => col.notNull())
    .addColumn('events', 'int8', (col) => col.notNull())
    .addPrimaryKeyConstraint('outcomes_pkey', ['app_key', 'hour_start', 'reason'])
    .execute();

  await db.schema
    .createTable('issue_payload_trims')
    .addColumn('app_key', 'text', (col) => col.notNull().references('apps.app_key').onDelete('cascade'))
    .addColumn('fingerprint', 'text', (col) => col.notNull())
    // The event_count when its payloads were last cut to the cap, and that cap (MAX_EVENTS_PER_ISSUE).
    .addColumn('event_count', 'int8', (col) => col.notNull())
    .addColumn('max_events', 'int8', (col) => col.notNull())
    .addPrimaryKeyConstraint('issue_payload_trims_pkey', ['app_key', 'fingerprint'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`set local statement_timeout = 0`.execute(db);
  await db.schema.dropTable('issue_payload_trims').ifExists().execute();
  await db.schema.dropTable('outcomes').ifExists().execute();
  await sql`alter table events rename to events_partitioned`.execute(db);
  await sql`alter index events_issue_timestamp rename to events_issue_timestamp_partitioned`.execute(db);
  await sql`alter index events_app_timestamp_window rename to events_app_timestamp_window_partitioned`.execute(db);
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
  await sql`insert into events select app_key, event_id, fingerprint, type, timestamp, received_at, anonymous_id, payload from events_partitioned on conflict do nothing`.execute(
    db,
  );
  await sql`drop table events_partitioned`.execute(db);
  await sql`create index events_issue_timestamp on events (app_key, fingerprint, timestamp desc, event_id desc)`.execute(
    db,
  );
  await sql`create index events_app_timestamp_window on events (app_key, timestamp) include (type, anonymous_id, fingerprint)`.execute(
    db,
  );
  await db.schema.dropTable('event_ids').ifExists().execute();
}
