// Distinct users per organization (issue 21), in place of per account. The overview without an appKey covers one
// organization, and its affectedUsers must count an id seen in several of the organization's apps once; the counter
// kept that per account (owner_users, owner_totals: apps.user_id, who made the app), which matched an organization only
// while one account had made all of its apps. Now org_users and org_totals (a counter of the ledger, migration 0017)
// are kept per apps.org_id, filled here from every app's users; overview_window() reads org_users. Frozen once landed:
// it keeps the function texts it runs (its own, and 0014's for its down) and imports no other module.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table org_users (
    org_id text not null references organizations (id) on delete cascade,
    anonymous_id text not null,
    apps int4 not null,
    primary key (org_id, anonymous_id)
  )`.execute(db);
  // overview_window() looks up the ids seen in several apps of an organization.
  await sql`create index org_users_shared on org_users (org_id) include (anonymous_id) where apps > 1`.execute(db);
  await sql`insert into org_users (org_id, anonymous_id, apps)
    select a.org_id, u.anonymous_id, count(*) from app_users u join apps a on a.app_key = u.app_key
    where a.org_id is not null group by 1, 2`.execute(db);
  await sql`create table org_totals_folded (
    org_id text primary key references organizations (id) on delete cascade,
    users int8 not null default 0
  )`.execute(db);
  await sql`insert into org_totals_folded (org_id, users) select org_id, count(*) from org_users group by 1`.execute(
    db,
  );
  await sql`create table org_totals_deltas (like org_totals_folded including defaults)
    with (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000)`.execute(db);
  await sql`create view org_totals as
    select org_id, sum(users)::int8 as users from (
      select org_id, users from org_totals_folded union all select org_id, users from org_totals_deltas
    ) counted group by org_id`.execute(db);
  await overviewWindowAsOf0019.execute(db);
  await sql`drop view owner_totals`.execute(db);
  await sql`drop table owner_totals_deltas`.execute(db);
  await sql`drop table owner_totals_folded`.execute(db);
  await sql`drop table owner_users`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  // The counters per account, made again from every app's users as migration 0004 made them.
  await sql`create table owner_users (
    user_id text not null references users (id) on delete cascade,
    anonymous_id text not null,
    apps int4 not null,
    primary key (user_id, anonymous_id)
  )`.execute(db);
  await sql`create index owner_users_shared on owner_users (user_id) include (anonymous_id) where apps > 1`.execute(db);
  await sql`insert into owner_users (user_id, anonymous_id, apps)
    select a.user_id, u.anonymous_id, count(*) from app_users u join apps a on a.app_key = u.app_key group by 1, 2`.execute(
    db,
  );
  await sql`create table owner_totals_folded (
    user_id text primary key references users (id) on delete cascade,
    users int8 not null
  )`.execute(db);
  await sql`insert into owner_totals_folded (user_id, users) select user_id, count(*) from owner_users group by 1`.execute(
    db,
  );
  await sql`create table owner_totals_deltas (like owner_totals_folded including defaults)
    with (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000)`.execute(db);
  await sql`create view owner_totals as
    select user_id, sum(users)::int8 as users from (
      select user_id, users from owner_totals_folded union all select user_id, users from owner_totals_deltas
    ) counted group by user_id`.execute(db);
  await overviewWindowAsOf0014.execute(db);
  await sql`drop view org_totals`.execute(db);
  await sql`drop table org_totals_deltas`.execute(db);
  await sql`drop table org_totals_folded`.execute(db);
  await sql`drop table org_users`.execute(db);
}

/**
 * The function as this migration created it: windowed-counts.ts's createOverviewWindow as it was then, with its hour
 * (3,600,000 ms) and minute (60,000 ms) written out. The live source must stay equal to the latest such copy
 * (overview-window.test.ts): a change there takes a new migration with its own copy.
 */
export const overviewWindowAsOf0019 = sql`
  create or replace function overview_window(app_keys text[], owner_id text, window_start int8, window_end int8)
  returns table (window_events int8, window_errors int8, window_failed_requests int8, window_users int8, window_issues int8)
  language plpgsql stable
  -- The same plan whatever the window: its shape (index ranges, small hash joins) does not depend on the values.
  set plan_cache_mode = force_generic_plan
  as $fn$
  declare
    first_hour int8 := window_start / 3600000;
    last_hour int8 := window_end / 3600000;
    first_day int8 := first_hour / 24;
    last_day int8 := last_hour / 24;
    -- The events read: [window_start, end of first_hour) ("late") and [start of last_hour, window_end) ("early"); the
    -- whole window when it lies within one hour.
    late_end int8 := least((first_hour + 1) * 3600000, window_end);
    early_start int8 := greatest(last_hour * 3600000, least((first_hour + 1) * 3600000, window_end));
    -- The whole hours between, (first_hour, last_hour): the rest of the first day, whole days, the start of the last.
    first_day_end int8 := least((first_day + 1) * 24, last_hour);
    last_day_start int8 := greatest(last_day * 24, (first_day + 1) * 24);
  begin
    if first_hour = last_hour then
      return query
        select s.events + d.events, s.errors + d.errors, s.failed_requests + d.failed_requests, s.users, s.issues
        from (
          select count(*) as events, count(*) filter (where e.type = 'error') as errors,
            count(*) filter (where e.type = 'request') as failed_requests,
            count(distinct e.anonymous_id) as users, count(distinct (e.app_key, e.fingerprint)) as issues
          from events e where e.app_key = any(app_keys) and e.timestamp >= window_start and e.timestamp < window_end
        ) s
        cross join (
          select coalesce(sum(m.events), 0)::int8 as events, coalesce(sum(m.errors), 0)::int8 as errors,
            coalesce(sum(m.failed_requests), 0)::int8 as failed_requests
          from deleted_event_minutes m
          where m.app_key = any(app_keys) and m.minute >= (window_start + 60000 - 1) / 60000 and m.minute < window_end / 60000
        ) d;
      return;
    end if;
    return query
      with edge_events as (
        select e.app_key, e.type, e.anonymous_id, e.fingerprint, true as is_late from events e
        where e.app_key = any(app_keys) and e.timestamp >= window_start and e.timestamp < late_end
        union all
        select e.app_key, e.type, e.anonymous_id, e.fingerprint, false from events e
        where e.app_key = any(app_keys) and e.timestamp >= early_start and e.timestamp < window_end
      ),
      edge_subjects as (
        select g.is_late, g.app_key, 'user'::text as kind, g.anonymous_id as subject from edge_events g where g.anonymous_id is not null
        union
        select g.is_late, g.app_key, 'issue'::text, g.fingerprint from edge_events g
      ),
      counts as (
        select sum(h.events) as events, sum(h.errors) as errors, sum(h.failed_requests) as failed_requests from app_hourly h
        where h.app_key = any(app_keys) and h.hour_start >= (first_hour + 1) * 3600000 and h.hour_start < last_hour * 3600000
        union all
        select count(*), count(*) filter (where g.type = 'error'), count(*) filter (where g.type = 'request') from edge_events g
        union all
        -- The deleted events of the minutes wholly inside the two partial hours.
        select sum(m.events), sum(m.errors), sum(m.failed_requests) from deleted_event_minutes m
        where m.app_key = any(app_keys) and m.minute >= (window_start + 60000 - 1) / 60000 and m.minute < late_end / 60000
        union all
        select sum(m.events), sum(m.errors), sum(m.failed_requests) from deleted_event_minutes m
        where m.app_key = any(app_keys) and m.minute >= (early_start + 60000 - 1) / 60000 and m.minute < window_end / 60000
      ),
      subject_parts as (
        -- Late subjects whose next active hour (the link whose previous hour is first_hour) is not a whole hour between.
        select s.kind, count(*) as subjects from edge_subjects s
        left join activity_hours a on a.app_key = any(app_keys) and a.kind = any('{user,issue}'::text[]) and a.prev_hour = first_hour
          and a.app_key = s.app_key and a.kind = s.kind and a.subject = s.subject and a.hour < last_hour
        where s.is_late and a.subject is null group by s.kind
        union all
        -- The links in the whole hours between that follow an hour of an earlier day than first_hour's: per day for the
        -- whole days, ...
        select c.kind, sum(c.links) from activity_by_prev_day c
        where c.app_key = any(app_keys) and c.kind = any('{user,issue}'::text[]) and c.day > first_day and c.day < last_day and c.prev_day < first_day
        group by c.kind
        union all
        -- ... per hour for the hours of the first day and of the last day, ...
        select c.kind, sum(c.links) from activity_by_hour c
        where c.app_key = any(app_keys) and c.kind = any('{user,issue}'::text[]) and c.hour > first_hour and c.hour < first_day_end and c.prev_day < first_day
        group by c.kind
        union all
        select c.kind, sum(c.links) from activity_by_hour c
        where c.app_key = any(app_keys) and c.kind = any('{user,issue}'::text[]) and c.hour >= last_day_start and c.hour < last_hour and c.prev_day < first_day
        group by c.kind
        union all
        -- ... and those that follow an hour of first_hour's day, at or before it, one by one.
        select a.kind, count(*) from activity_hours a
        where a.app_key = any(app_keys) and a.kind = any('{user,issue}'::text[]) and a.prev_hour >= first_day * 24 and a.prev_hour <= first_hour
          and a.hour > first_hour and a.hour < last_hour
        group by a.kind
        union all
        -- Early subjects with no whole hour between: hour last_hour follows an hour before first_hour, or first_hour
        -- without being late.
        select s.kind, count(*) from edge_subjects s
        join activity_hours p on p.app_key = any(app_keys) and p.kind = any('{user,issue}'::text[]) and p.hour = last_hour
          and p.app_key = s.app_key and p.kind = s.kind and p.subject = s.subject
        where not s.is_late and (p.prev_hour < first_hour or (p.prev_hour = first_hour and not exists (
          select from edge_subjects l where l.is_late and l.app_key = s.app_key and l.kind = s.kind and l.subject = s.subject)))
        group by s.kind
        union all
        -- Over all of an organization's apps, an id active in k > 1 of them was counted k times.
        select 'user', -coalesce(sum(r.apps - 1), 0) from (
          select count(*) as apps from org_users o
          join app_users u on u.anonymous_id = o.anonymous_id and u.app_key = any(app_keys)
          where owner_id is not null and o.org_id = owner_id and o.apps > 1 and (
            exists (select from activity_hours a
              where a.app_key = u.app_key and a.kind = 'user' and a.subject = u.anonymous_id and a.hour > first_hour and a.hour < last_hour)
            or exists (select from edge_subjects s where s.kind = 'user' and s.app_key = u.app_key and s.subject = u.anonymous_id))
          group by o.anonymous_id) r
        where r.apps > 1
      )
      select
        (select coalesce(sum(c.events), 0) from counts c)::int8,
        (select coalesce(sum(c.errors), 0) from counts c)::int8,
        (select coalesce(sum(c.failed_requests), 0) from counts c)::int8,
        (select coalesce(sum(p.subjects), 0) from subject_parts p where p.kind = 'user')::int8,
        (select coalesce(sum(p.subjects), 0) from subject_parts p where p.kind = 'issue')::int8;
  end
  $fn$`;

/** The function as migration 0014 created it, for the down. */
const overviewWindowAsOf0014 = sql`
  create or replace function overview_window(app_keys text[], owner_id text, window_start int8, window_end int8)
  returns table (window_events int8, window_errors int8, window_failed_requests int8, window_users int8, window_issues int8)
  language plpgsql stable
  -- The same plan whatever the window: its shape (index ranges, small hash joins) does not depend on the values.
  set plan_cache_mode = force_generic_plan
  as $fn$
  declare
    first_hour int8 := window_start / 3600000;
    last_hour int8 := window_end / 3600000;
    first_day int8 := first_hour / 24;
    last_day int8 := last_hour / 24;
    -- The events read: [window_start, end of first_hour) ("late") and [start of last_hour, window_end) ("early"); the
    -- whole window when it lies within one hour.
    late_end int8 := least((first_hour + 1) * 3600000, window_end);
    early_start int8 := greatest(last_hour * 3600000, least((first_hour + 1) * 3600000, window_end));
    -- The whole hours between, (first_hour, last_hour): the rest of the first day, whole days, the start of the last.
    first_day_end int8 := least((first_day + 1) * 24, last_hour);
    last_day_start int8 := greatest(last_day * 24, (first_day + 1) * 24);
  begin
    if first_hour = last_hour then
      return query
        select s.events + d.events, s.errors + d.errors, s.failed_requests + d.failed_requests, s.users, s.issues
        from (
          select count(*) as events, count(*) filter (where e.type = 'error') as errors,
            count(*) filter (where e.type = 'request') as failed_requests,
            count(distinct e.anonymous_id) as users, count(distinct (e.app_key, e.fingerprint)) as issues
          from events e where e.app_key = any(app_keys) and e.timestamp >= window_start and e.timestamp < window_end
        ) s
        cross join (
          select coalesce(sum(m.events), 0)::int8 as events, coalesce(sum(m.errors), 0)::int8 as errors,
            coalesce(sum(m.failed_requests), 0)::int8 as failed_requests
          from deleted_event_minutes m
          where m.app_key = any(app_keys) and m.minute >= (window_start + 60000 - 1) / 60000 and m.minute < window_end / 60000
        ) d;
      return;
    end if;
    return query
      with edge_events as (
        select e.app_key, e.type, e.anonymous_id, e.fingerprint, true as is_late from events e
        where e.app_key = any(app_keys) and e.timestamp >= window_start and e.timestamp < late_end
        union all
        select e.app_key, e.type, e.anonymous_id, e.fingerprint, false from events e
        where e.app_key = any(app_keys) and e.timestamp >= early_start and e.timestamp < window_end
      ),
      edge_subjects as (
        select g.is_late, g.app_key, 'user'::text as kind, g.anonymous_id as subject from edge_events g where g.anonymous_id is not null
        union
        select g.is_late, g.app_key, 'issue'::text, g.fingerprint from edge_events g
      ),
      counts as (
        select sum(h.events) as events, sum(h.errors) as errors, sum(h.failed_requests) as failed_requests from app_hourly h
        where h.app_key = any(app_keys) and h.hour_start >= (first_hour + 1) * 3600000 and h.hour_start < last_hour * 3600000
        union all
        select count(*), count(*) filter (where g.type = 'error'), count(*) filter (where g.type = 'request') from edge_events g
        union all
        -- The deleted events of the minutes wholly inside the two partial hours.
        select sum(m.events), sum(m.errors), sum(m.failed_requests) from deleted_event_minutes m
        where m.app_key = any(app_keys) and m.minute >= (window_start + 60000 - 1) / 60000 and m.minute < late_end / 60000
        union all
        select sum(m.events), sum(m.errors), sum(m.failed_requests) from deleted_event_minutes m
        where m.app_key = any(app_keys) and m.minute >= (early_start + 60000 - 1) / 60000 and m.minute < window_end / 60000
      ),
      subject_parts as (
        -- Late subjects whose next active hour (the link whose previous hour is first_hour) is not a whole hour between.
        select s.kind, count(*) as subjects from edge_subjects s
        left join activity_hours a on a.app_key = any(app_keys) and a.kind = any('{user,issue}'::text[]) and a.prev_hour = first_hour
          and a.app_key = s.app_key and a.kind = s.kind and a.subject = s.subject and a.hour < last_hour
        where s.is_late and a.subject is null group by s.kind
        union all
        -- The links in the whole hours between that follow an hour of an earlier day than first_hour's: per day for the
        -- whole days, ...
        select c.kind, sum(c.links) from activity_by_prev_day c
        where c.app_key = any(app_keys) and c.kind = any('{user,issue}'::text[]) and c.day > first_day and c.day < last_day and c.prev_day < first_day
        group by c.kind
        union all
        -- ... per hour for the hours of the first day and of the last day, ...
        select c.kind, sum(c.links) from activity_by_hour c
        where c.app_key = any(app_keys) and c.kind = any('{user,issue}'::text[]) and c.hour > first_hour and c.hour < first_day_end and c.prev_day < first_day
        group by c.kind
        union all
        select c.kind, sum(c.links) from activity_by_hour c
        where c.app_key = any(app_keys) and c.kind = any('{user,issue}'::text[]) and c.hour >= last_day_start and c.hour < last_hour and c.prev_day < first_day
        group by c.kind
        union all
        -- ... and those that follow an hour of first_hour's day, at or before it, one by one.
        select a.kind, count(*) from activity_hours a
        where a.app_key = any(app_keys) and a.kind = any('{user,issue}'::text[]) and a.prev_hour >= first_day * 24 and a.prev_hour <= first_hour
          and a.hour > first_hour and a.hour < last_hour
        group by a.kind
        union all
        -- Early subjects with no whole hour between: hour last_hour follows an hour before first_hour, or first_hour
        -- without being late.
        select s.kind, count(*) from edge_subjects s
        join activity_hours p on p.app_key = any(app_keys) and p.kind = any('{user,issue}'::text[]) and p.hour = last_hour
          and p.app_key = s.app_key and p.kind = s.kind and p.subject = s.subject
        where not s.is_late and (p.prev_hour < first_hour or (p.prev_hour = first_hour and not exists (
          select from edge_subjects l where l.is_late and l.app_key = s.app_key and l.kind = s.kind and l.subject = s.subject)))
        group by s.kind
        union all
        -- Over all of an owner's apps, an id active in k > 1 of them was counted k times.
        select 'user', -coalesce(sum(r.apps - 1), 0) from (
          select count(*) as apps from owner_users o
          join app_users u on u.anonymous_id = o.anonymous_id and u.app_key = any(app_keys)
          where owner_id is not null and o.user_id = owner_id and o.apps > 1 and (
            exists (select from activity_hours a
              where a.app_key = u.app_key and a.kind = 'user' and a.subject = u.anonymous_id and a.hour > first_hour and a.hour < last_hour)
            or exists (select from edge_subjects s where s.kind = 'user' and s.app_key = u.app_key and s.subject = u.anonymous_id))
          group by o.anonymous_id) r
        where r.apps > 1
      )
      select
        (select coalesce(sum(c.events), 0) from counts c)::int8,
        (select coalesce(sum(c.errors), 0) from counts c)::int8,
        (select coalesce(sum(c.failed_requests), 0) from counts c)::int8,
        (select coalesce(sum(p.subjects), 0) from subject_parts p where p.kind = 'user')::int8,
        (select coalesce(sum(p.subjects), 0) from subject_parts p where p.kind = 'issue')::int8;
  end
  $fn$`;
