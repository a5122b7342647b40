// The counter ledger (issue 24). Every write statement used to add to the same rows (an app's totals and hourly
// counts, its issues, its outcomes, the activity link counts): concurrent statements queued on those row locks, so a
// second process made ingestion slower, not faster. Now a statement appends its deltas to a `<counter>_deltas` table
// (plain inserts: no conflict check, no row lock), and one process at a time folds them into `<counter>_folded`
// (counters.ts in the live code). `<counter>` itself becomes a view, the folded rows plus the deltas not yet folded,
// summed per key: every reader (code, tools, tests) reads it as before and gets the exact count in one snapshot.
// Issues keep their counts in their own row (the list sorts by them); issue_deltas holds the unfolded part and
// issues_live adds it. Frozen once landed: a later change takes a new migration.
import { type Kysely, sql } from 'kysely';

/** A summed counter: its table, its key columns, its summed columns (all int8). */
const counters: ReadonlyArray<{ table: string; keys: string[]; sums: string[] }> = [
  { table: 'app_totals', keys: ['app_key'], sums: ['events', 'errors', 'failed_requests', 'issues', 'users'] },
  { table: 'app_hourly', keys: ['app_key', 'hour_start'], sums: ['events', 'errors', 'failed_requests'] },
  { table: 'issue_days', keys: ['app_key', 'fingerprint', 'day'], sums: ['events'] },
  {
    table: 'issue_contexts',
    keys: ['app_key', 'fingerprint', 'release', 'environment', 'user_agent'],
    sums: ['events'],
  },
  { table: 'outcomes', keys: ['app_key', 'hour_start', 'reason'], sums: ['events'] },
  { table: 'activity_by_prev_day', keys: ['app_key', 'kind', 'day', 'prev_day'], sums: ['links'] },
  { table: 'activity_by_hour', keys: ['app_key', 'kind', 'hour', 'prev_day'], sums: ['links'] },
  { table: 'owner_totals', keys: ['user_id'], sums: ['users'] },
];

const ids = (names: readonly string[]) => sql.join(names.map((name) => sql.id(name)));

export async function up(db: Kysely<any>): Promise<void> {
  // New: an issue's events by release, environment and user agent ('' for none), what its breakdown shows. It read the
  // newest 1,000 payloads of the issue (37 ms at p95); now it reads these counts. Filled from the events still stored.
  await sql`create table issue_contexts (
    app_key text not null references apps (app_key) on delete cascade,
    fingerprint text not null,
    release text not null,
    environment text not null,
    user_agent text not null,
    events int8 not null,
    primary key (app_key, fingerprint, release, environment, user_agent)
  )`.execute(db);
  await sql`insert into issue_contexts (app_key, fingerprint, release, environment, user_agent, events)
    select app_key, fingerprint, coalesce(c.release, ''), coalesce(c.environment, ''), coalesce(c."userAgent", ''), count(*)
    from events cross join lateral jsonb_to_record(payload) as c(release text, environment text, "userAgent" text)
    group by 1, 2, 3, 4, 5`.execute(db);
  for (const { table, keys, sums } of counters) {
    await sql`alter table ${sql.table(table)} rename to ${sql.table(`${table}_folded`)}`.execute(db);
    // No key, no index, no foreign key: an insert here takes no lock but on the table's last page. The folder skips
    // the deltas of a deleted app or user.
    await sql`create table ${sql.table(`${table}_deltas`)} (like ${sql.table(`${table}_folded`)} including defaults)`.execute(
      db,
    );
    // Autovacuum's default threshold (20% of a table) would let a table that is emptied twice a second keep a minute
    // of dead rows, which every read of the view scans.
    await sql`alter table ${sql.table(`${table}_deltas`)} set (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000)`.execute(
      db,
    );
    const summed = sql.join(sums.map((name) => sql`sum(${sql.id(name)})::int8 as ${sql.id(name)}`));
    await sql`create view ${sql.table(table)} as
      select ${ids(keys)}, ${summed} from (
        select ${ids(keys)}, ${ids(sums)} from ${sql.table(`${table}_folded`)}
        union all
        select ${ids(keys)}, ${ids(sums)} from ${sql.table(`${table}_deltas`)}
      ) counted group by ${ids(keys)}`.execute(db);
  }

  // An issue's counts, seen times, level and release as its events since the last fold changed them: one row per
  // statement and issue, folded into the issue's row.
  await sql`create table issue_deltas (
    app_key text not null,
    fingerprint text not null,
    events int8 not null,
    users int8 not null,
    first_seen int8 not null,
    last_seen int8 not null,
    level text,
    last_release text
  ) with (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000)`.execute(db);
  // Events per issue and minute of receipt for apps with a spike rule, and when they were received: the fold adds them
  // to issue_minutes and decides the spikes, one fold at a time (the write statement upserted issue_minutes itself).
  await sql`create table issue_minute_deltas (
    app_key text not null,
    fingerprint text not null,
    minute int4 not null,
    events int4 not null,
    received_at int8 not null
  ) with (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000)`.execute(db);
  // The list and the issue page add one issue's deltas: an index probe, not a scan.
  await sql`create index issue_deltas_issue on issue_deltas (app_key, fingerprint)`.execute(db);
  await sql`create view issues_live as
    select i.app_key, i.fingerprint, i.message, i.error_type,
      i.event_count + coalesce(d.events, 0) as event_count,
      i.user_count + coalesce(d.users, 0) as user_count,
      least(i.first_seen_at, d.first_seen) as first_seen_at,
      greatest(i.last_seen_at, d.last_seen) as last_seen_at,
      i.status, i.status_changed_at, i.regressed_at, i.regressed_by_last_write, i.culprit,
      case when d.last_seen >= i.last_seen_at then coalesce(d.level, i.level) else i.level end as level,
      case when d.last_seen >= i.last_seen_at then coalesce(d.last_release, i.last_release)
        else coalesce(i.last_release, d.last_release) end as last_release,
      i.type, i.search_text
    from issues i
    left join lateral (
      select sum(x.events)::int8 as events, sum(x.users)::int8 as users, min(x.first_seen) as first_seen,
        max(x.last_seen) as last_seen,
        (array_agg(x.level order by x.last_seen desc))[1] as level,
        (array_agg(x.last_release order by x.last_seen desc) filter (where x.last_release is not null))[1] as last_release
      from issue_deltas x where x.app_key = i.app_key and x.fingerprint = i.fingerprint
    ) d on true`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table issue_minute_deltas`.execute(db);
  await sql`drop view issues_live`.execute(db);
  // What was not folded yet is folded by hand here: the deltas of issues into their rows.
  await sql`update issues i set event_count = i.event_count + d.events, user_count = i.user_count + d.users,
      first_seen_at = least(i.first_seen_at, d.first_seen), last_seen_at = greatest(i.last_seen_at, d.last_seen)
    from (select app_key, fingerprint, sum(events) as events, sum(users) as users, min(first_seen) as first_seen,
      max(last_seen) as last_seen from issue_deltas group by 1, 2) d
    where i.app_key = d.app_key and i.fingerprint = d.fingerprint`.execute(db);
  await sql`drop table issue_deltas`.execute(db);
  for (const { table, keys, sums } of counters) {
    const folded = sql.table(`${table}_folded`);
    await sql`drop view ${sql.table(table)}`.execute(db);
    await sql`insert into ${folded} (${ids(keys)}, ${ids(sums)})
      select ${ids(keys)}, ${sql.join(sums.map((name) => sql`sum(${sql.id(name)})`))} from ${sql.table(`${table}_deltas`)} group by ${ids(keys)}
      on conflict (${ids(keys)}) do update set ${sql.join(
        sums.map((name) => sql`${sql.id(name)} = ${folded}.${sql.id(name)} + excluded.${sql.id(name)}`),
      )}`.execute(db);
    await sql`drop table ${sql.table(`${table}_deltas`)}`.execute(db);
    await sql`alter table ${folded} rename to ${sql.table(table)}`.execute(db);
  }
  await sql`drop table issue_contexts`.execute(db);
}
