// What an app's events say about each release, counted: events, issues new in it, first and last event, a counter of
// the ledger (counters.ts) per (app, release) that the write statement appends to. The releases page, and Sentry's
// release API, read them for each issue seen in a release from its kept events (1.3-2.0 s for an app of 276,600
// events, docs/performance.md); now from one index range. As Sentry keeps them, they are of every event received: a new
// issue counts in the release of its first event, and retention moves no first or last event. Filled from what is
// stored: events from issue_contexts (the same counts), new issues from each issue's first kept event, first and last
// event from the kept events (per issue seen in a release, a walk from each end that stops at the first naming it).
// Frozen once landed.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table app_releases_folded (
    app_key text not null references apps (app_key) on delete cascade,
    release text not null,
    events int8 not null default 0,
    new_issues int8 not null default 0,
    first_seen int8,
    last_seen int8,
    primary key (app_key, release)
  )`.execute(db);
  // As every ledger table (migration 0017): no key, no index, no foreign key.
  await sql`create table app_releases_deltas (like app_releases_folded including defaults)
    with (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000)`.execute(db);
  await sql`create view app_releases as
    select app_key, release, sum(events)::int8 as events, sum(new_issues)::int8 as new_issues,
      min(first_seen) as first_seen, max(last_seen) as last_seen
    from (
      select app_key, release, events, new_issues, first_seen, last_seen from app_releases_folded
      union all
      select app_key, release, events, new_issues, first_seen, last_seen from app_releases_deltas
    ) counted group by app_key, release`.execute(db);
  const namingRelease = sql`select e.timestamp from events e
    where e.app_key = f.app_key and e.fingerprint = f.fingerprint and e.payload->>'release' = f.value`;
  await sql`insert into app_releases_folded (app_key, release, events, new_issues, first_seen, last_seen)
    select c.app_key, c.release, c.events, coalesce(n.issues, 0), s.first_seen, s.last_seen
    from (select app_key, release, sum(events) as events from issue_contexts where release <> '' group by 1, 2) c
    left join (
      select i.app_key, first.release, count(*) as issues from issues i
      cross join lateral (select e.payload->>'release' as release from events e
        where e.app_key = i.app_key and e.fingerprint = i.fingerprint
        order by e.timestamp, e.event_id limit 1) first
      where first.release is not null
      group by 1, 2
    ) n on n.app_key = c.app_key and n.release = c.release
    left join (
      select f.app_key, f.value as release, min(first.timestamp) as first_seen, max(last.timestamp) as last_seen
      from issue_facets f
      cross join lateral (${namingRelease} order by e.timestamp limit 1) first
      cross join lateral (${namingRelease} order by e.timestamp desc limit 1) last
      where f.facet = 'release'
      group by 1, 2
    ) s on s.app_key = c.app_key and s.release = c.release`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop view app_releases`.execute(db);
  await sql`drop table app_releases_deltas`.execute(db);
  await sql`drop table app_releases_folded`.execute(db);
}
