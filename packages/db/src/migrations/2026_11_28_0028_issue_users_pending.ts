// A user's first events of an issue without a row lock between writers (issue 24): the write statement claims each
// (issue, user) pair it would insert into issue_users with a transaction-level advisory lock that it only tries; a pair
// another statement has claimed and not yet committed (so its insert would wait for that commit), or one past the
// statement's share of claims, is appended here instead, a plain insert, and the fold moves it into issue_users
// (counters.ts). issues_live counts the pending pairs
// that issue_users lacks, each once, so an issue's users stay exact at every commit. Frozen once landed: a later
// change takes a new migration.
import { type Kysely, type RawBuilder, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table issue_users_pending (
    app_key text not null references apps (app_key) on delete cascade,
    fingerprint text not null,
    anonymous_id text not null
  ) with (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000)`.execute(db);
  await sql`create index issue_users_pending_issue on issue_users_pending (app_key, fingerprint)`.execute(db);
  await issuesLive(
    sql`i.user_count + coalesce(d.users, 0) + p.users`,
    // The pending pairs are probed by the whole key in issue_users (a scalar sub-query: as NOT EXISTS PostgreSQL may
    // make it an anti-join that reads the issue's every user). The list is mostly empty: one look at it per query (an
    // InitPlan) spares each issue its probe (50 issues' rows 0.51 -> 0.48 ms, 0.45 without the count, on a 1M seed).
    sql`cross join lateral (
      select count(distinct q.anonymous_id) as users from issue_users_pending q
      where exists (select from issue_users_pending) and q.app_key = i.app_key and q.fingerprint = i.fingerprint
        and (select true from issue_users u
          where u.app_key = q.app_key and u.fingerprint = q.fingerprint and u.anonymous_id = q.anonymous_id) is null
    ) p`,
  ).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  // Pending pairs into issue_users and their issues' counts first, as the fold would have moved them.
  await sql`with added as (
      insert into issue_users (app_key, fingerprint, anonymous_id)
      select distinct app_key, fingerprint, anonymous_id from issue_users_pending
      on conflict do nothing returning app_key, fingerprint)
    update issues i set user_count = i.user_count + a.users
    from (select app_key, fingerprint, count(*) as users from added group by 1, 2) a
    where i.app_key = a.app_key and i.fingerprint = a.fingerprint`.execute(db);
  // As migration 0020 made it.
  await issuesLive(sql`i.user_count + coalesce(d.users, 0)`, sql``).execute(db);
  await sql`drop table issue_users_pending`.execute(db);
}

/** issues_live (migration 0020's columns, in its order) with the given user count and what it joins for it. */
const issuesLive = (
  userCount: RawBuilder<unknown>,
  usersJoin: RawBuilder<unknown>,
) => sql`create or replace view issues_live as
    select i.app_key, i.fingerprint, i.message, i.error_type,
      i.event_count + coalesce(d.events, 0) as event_count,
      ${userCount} as user_count,
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
    ) d on true
    ${usersJoin}`;
