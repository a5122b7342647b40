// Who was active in which UTC hour, linked to the same subject's active hour before, and counts of those links per
// day: what lets the overview count the distinct users and issues of any time window without reading a row per user,
// per issue or per event. A subject (an app's user, or an issue) counts once in a window, through its first active
// hour in it: the one whose previous active hour lies before the window. So "distinct subjects in a window" becomes
// "links in the window that start before it", which the per-day counts answer for whole days (windowed-counts.ts).
// Kept by the write path (write-path/activity.ts). Frozen once landed.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // The fold below reads every stored event once; on a large database that takes longer than a request may.
  await sql`set local statement_timeout = 0`.execute(db);

  // kind: 'u' for an app's user (subject: its anonymous id), 'i' for an issue (subject: its fingerprint); migration
  // 0008 renames them 'user' and 'issue'.
  // hour: ms / 3,600,000; prev_hour: the subject's active hour before this one, -1 for its first.
  await db.schema
    .createTable('activity_hours')
    .addColumn('app_key', 'text', (col) => col.notNull().references('apps.app_key').onDelete('cascade'))
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('subject', 'text', (col) => col.notNull())
    .addColumn('hour', 'int4', (col) => col.notNull())
    .addColumn('prev_hour', 'int4', (col) => col.notNull())
    .addPrimaryKeyConstraint('activity_hours_pkey', ['app_key', 'kind', 'subject', 'hour'])
    .execute();
  // Read index-only by the overview: the links of a range of hours, and those that follow a given hour.
  await sql`create index activity_hours_by_hour on activity_hours (app_key, kind, hour) include (prev_hour, subject)`.execute(
    db,
  );
  await sql`create index activity_hours_by_prev_hour on activity_hours (app_key, kind, prev_hour) include (hour, subject)`.execute(
    db,
  );

  // The same links counted per day of the hour, and per day (prev_day, -1 for none) or hour of the one before. The
  // overview reads the first for a range of days, the second for the hours of one day: hence prev_hour first in its key
  // (migration 0007 replaced the second with activity_by_hour).
  await db.schema
    .createTable('activity_by_prev_day')
    .addColumn('app_key', 'text', (col) => col.notNull().references('apps.app_key').onDelete('cascade'))
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('day', 'int4', (col) => col.notNull())
    .addColumn('prev_day', 'int4', (col) => col.notNull())
    .addColumn('links', 'int8', (col) => col.notNull())
    .addPrimaryKeyConstraint('activity_by_prev_day_pkey', ['app_key', 'kind', 'day', 'prev_day'])
    .execute();
  await db.schema
    .createTable('activity_by_prev_hour')
    .addColumn('app_key', 'text', (col) => col.notNull().references('apps.app_key').onDelete('cascade'))
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('day', 'int4', (col) => col.notNull())
    .addColumn('prev_hour', 'int4', (col) => col.notNull())
    .addColumn('links', 'int8', (col) => col.notNull())
    .addPrimaryKeyConstraint('activity_by_prev_hour_pkey', ['app_key', 'kind', 'prev_hour', 'day'])
    .execute();

  // Each subject's recent active hours, ascending: the hours of the last 32 days and the one before them, enough to
  // link any hour an event can still bring (events are never older than 30 days). The write path reads and extends
  // it under the row's lock, which serialises every change to one subject's hours however many statements write them.
  await sql`alter table app_users add column hours int4[] not null default '{}'`.execute(db);
  // A list with the hours added, ascending and distinct, less those before keep_from but the latest of them.
  await sql`
    create function merge_hours(hours int4[], added int4[], keep_from int4) returns int4[]
    language sql immutable parallel safe as $$
      select coalesce(array_agg(h order by h), '{}') from (select distinct h from unnest(hours || added) h) m
      where h >= keep_from or h = (select max(x) from unnest(hours || added) x where x < keep_from)
    $$`.execute(db);
  await db.schema
    .createTable('issue_hours')
    .addColumn('app_key', 'text', (col) => col.notNull().references('apps.app_key').onDelete('cascade'))
    .addColumn('fingerprint', 'text', (col) => col.notNull())
    .addColumn('hours', sql`int4[]`, (col) => col.notNull())
    .addPrimaryKeyConstraint('issue_hours_pkey', ['app_key', 'fingerprint'])
    .execute();

  // Events stored before this migration, folded in once (whole hour lists: the write path trims them as it goes).
  await sql`
    insert into activity_hours (app_key, kind, subject, hour, prev_hour)
    select app_key, kind, subject, hour, coalesce(lag(hour) over (partition by app_key, kind, subject order by hour), -1)
    from (
      select distinct app_key, 'u' as kind, anonymous_id as subject, (timestamp / 3600000)::int4 as hour from events where anonymous_id is not null
      union
      select distinct app_key, 'i', fingerprint, (timestamp / 3600000)::int4 from events
    ) h`.execute(db);
  await sql`
    update app_users u set hours = h.hours
    from (select app_key, subject, array_agg(hour order by hour) as hours from activity_hours where kind = 'u' group by 1, 2) h
    where u.app_key = h.app_key and u.anonymous_id = h.subject`.execute(db);
  await sql`
    insert into issue_hours (app_key, fingerprint, hours)
    select app_key, subject, array_agg(hour order by hour) from activity_hours where kind = 'i' group by 1, 2`.execute(
    db,
  );
  await sql`
    insert into activity_by_prev_day (app_key, kind, day, prev_day, links)
    select app_key, kind, hour / 24, case when prev_hour < 0 then -1 else prev_hour / 24 end, count(*) from activity_hours group by 1, 2, 3, 4`.execute(
    db,
  );
  await sql`
    insert into activity_by_prev_hour (app_key, kind, day, prev_hour, links)
    select app_key, kind, hour / 24, prev_hour, count(*) from activity_hours group by 1, 2, 3, 4`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['issue_hours', 'activity_by_prev_hour', 'activity_by_prev_day', 'activity_hours']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
  await sql`alter table app_users drop column if exists hours`.execute(db);
  await sql`drop function if exists merge_hours(int4[], int4[], int4)`.execute(db);
}
