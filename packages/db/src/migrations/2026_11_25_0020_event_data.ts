// Sentry's event data (issue 23): issues record the grouping version that made their fingerprint, and every issue's
// events are counted by tag value on the counter ledger (0017's pattern: `issue_tags` is a view over the folded rows
// and the deltas the write statement appends). Tags are searched through issue_facets, which gains `tag:<key>` and
// `handled` facets without a schema change. Frozen once landed: a later change takes a new migration.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Issues made before versions were recorded were made by version 1 (or by a client's own fingerprint: the two
  // cannot be told apart now). New ones record 2, or null for a client's fingerprint.
  await sql`alter table issues add column grouping_version int2`.execute(db);
  await sql`update issues set grouping_version = 1`.execute(db);
  // The view lists its columns: recreated with the new one at the end (create or replace may only append).
  await sql`create or replace view issues_live as
    select i.app_key, i.fingerprint, i.message, i.error_type,
      i.event_count + coalesce(d.events, 0) as event_count,
      i.user_count + coalesce(d.users, 0) as user_count,
      least(i.first_seen_at, d.first_seen) as first_seen_at,
      greatest(i.last_seen_at, d.last_seen) as last_seen_at,
      i.status, i.status_changed_at, i.regressed_at, i.regressed_by_last_write, i.culprit,
      case when d.last_seen >= i.last_seen_at then coalesce(d.level, i.level) else i.level end as level,
      case when d.last_seen >= i.last_seen_at then coalesce(d.last_release, i.last_release)
        else coalesce(i.last_release, d.last_release) end as last_release,
      i.type, i.search_text, i.grouping_version
    from issues i
    left join lateral (
      select sum(x.events)::int8 as events, sum(x.users)::int8 as users, min(x.first_seen) as first_seen,
        max(x.last_seen) as last_seen,
        (array_agg(x.level order by x.last_seen desc))[1] as level,
        (array_agg(x.last_release order by x.last_seen desc) filter (where x.last_release is not null))[1] as last_release
      from issue_deltas x where x.app_key = i.app_key and x.fingerprint = i.fingerprint
    ) d on true`.execute(db);

  await sql`create table issue_tags_folded (
    app_key text not null references apps (app_key) on delete cascade,
    fingerprint text not null,
    key text not null,
    value text not null,
    events int8 not null,
    primary key (app_key, fingerprint, key, value)
  )`.execute(db);
  await sql`create table issue_tags_deltas (like issue_tags_folded including defaults)
    with (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000)`.execute(db);
  await sql`create view issue_tags as
    select app_key, fingerprint, key, value, sum(events)::int8 as events from (
      select app_key, fingerprint, key, value, events from issue_tags_folded
      union all
      select app_key, fingerprint, key, value, events from issue_tags_deltas
    ) counted group by app_key, fingerprint, key, value`.execute(db);
  // Readers of one issue's counts (its page, its tags, the list's sparklines) add its unfolded deltas: an index probe
  // each, as issue_deltas has, rather than a scan of a table that grows between folds and vacuums (issue_tags_deltas
  // takes a row per tag value an issue's events had in a statement).
  for (const table of ['issue_days_deltas', 'issue_contexts_deltas', 'issue_tags_deltas'])
    await sql`create index ${sql.id(`${table}_issue`)} on ${sql.table(table)} (app_key, fingerprint)`.execute(db);
  // Of the tags counted from now on, only `level` was kept before: counted from the events still stored.
  await sql`insert into issue_tags_folded (app_key, fingerprint, key, value, events)
    select app_key, fingerprint, 'level', payload->>'level', count(*) from events
    where payload->>'level' is not null group by 1, 2, 4`.execute(db);
  await sql`insert into issue_facets (app_key, facet, value, fingerprint)
    select distinct app_key, 'tag:level', value, fingerprint from issue_tags_folded
    on conflict do nothing`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from issue_facets where facet like 'tag:%' or facet = 'handled'`.execute(db);
  for (const table of ['issue_days_deltas', 'issue_contexts_deltas'])
    await sql`drop index ${sql.id(`${table}_issue`)}`.execute(db);
  await sql`drop view issue_tags`.execute(db);
  await sql`drop table issue_tags_deltas`.execute(db);
  await sql`drop table issue_tags_folded`.execute(db);
  await sql`drop view issues_live`.execute(db);
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
  await sql`alter table issues drop column grouping_version`.execute(db);
}
