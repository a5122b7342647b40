// Activity kinds in the product's words: 'user' and 'issue' instead of 'u' and 'i', and overview_window() recreated
// with names to match: its parameters and result columns are renamed, which `create or replace` cannot do, hence the
// drop. Frozen once landed: it keeps the function texts it runs (its own, and 0007's for its down) and imports no other
// module. Its own is the text of windowed-counts.ts from 0008 to 0013; it was created from there until migration 0014
// changed that source to read a table created there.
import { type Kysely, sql } from 'kysely';

/** Rewrites every activity row's kind once (on a large database, longer than a request may take), and the function. */
async function renameKinds(
  db: Kysely<any>,
  names: Record<string, string>,
  createFunction: { execute(db: Kysely<any>): Promise<unknown> },
) {
  await sql`set local statement_timeout = 0`.execute(db);
  const [[fromUser, toUser], [fromIssue, toIssue]] = Object.entries(names) as [[string, string], [string, string]];
  for (const table of ['activity_hours', 'activity_by_prev_day', 'activity_by_hour']) {
    await sql`update ${sql.table(table)} set kind = case kind when ${fromUser} then ${toUser} else ${toIssue} end
      where kind in (${fromUser}, ${fromIssue})`.execute(db);
  }
  await sql`drop function overview_window(text[], text, int8, int8)`.execute(db);
  await createFunction.execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  await renameKinds(db, { u: 'user', i: 'issue' }, overviewWindowAsOf0008);
}

export async function down(db: Kysely<any>): Promise<void> {
  // The function as migration 0007 left it (it reads the kinds 'u' and 'i').
  await renameKinds(db, { user: 'u', issue: 'i' }, overviewWindowAsOf0007);
}

/** The function as this migration created it (migration 0014's down restores it from its own copy). */
const overviewWindowAsOf0008 = sql`
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
        select count(*), count(*) filter (where e.type = 'error'), count(*) filter (where e.type = 'request'),
          count(distinct e.anonymous_id), count(distinct (e.app_key, e.fingerprint))
        from events e where e.app_key = any(app_keys) and e.timestamp >= window_start and e.timestamp < window_end;
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

/** The function as migration 0007 created it, copied from there: what down restores. */
const overviewWindowAsOf0007 = sql`
    create or replace function overview_window(keys text[], owner text, t1 int8, t2 int8)
    returns table (w_events int8, w_errors int8, w_failed_requests int8, w_users int8, w_issues int8)
    language plpgsql stable
    set plan_cache_mode = force_generic_plan
    as $fn$
    declare
      h0 int8 := t1 / 3600000;
      hn int8 := t2 / 3600000;
      day0 int8 := h0 / 24;
      dayn int8 := hn / 24;
      late_end int8 := least((h0 + 1) * 3600000, t2);
      early_start int8 := greatest(hn * 3600000, least((h0 + 1) * 3600000, t2));
      first_day_end int8 := least((day0 + 1) * 24, hn);
      last_day_start int8 := greatest(dayn * 24, (day0 + 1) * 24);
    begin
      if h0 = hn then
        return query
          select count(*), count(*) filter (where e.type = 'error'), count(*) filter (where e.type = 'request'),
            count(distinct e.anonymous_id), count(distinct (e.app_key, e.fingerprint))
          from events e where e.app_key = any(keys) and e.timestamp >= t1 and e.timestamp < t2;
        return;
      end if;
      return query
        with edges as (
          select e.app_key, e.type, e.anonymous_id, e.fingerprint, true as is_late from events e
          where e.app_key = any(keys) and e.timestamp >= t1 and e.timestamp < late_end
          union all
          select e.app_key, e.type, e.anonymous_id, e.fingerprint, false from events e
          where e.app_key = any(keys) and e.timestamp >= early_start and e.timestamp < t2
        ),
        subjects as (
          select g.is_late, g.app_key, 'u'::text as kind, g.anonymous_id as subject from edges g where g.anonymous_id is not null
          union
          select g.is_late, g.app_key, 'i'::text, g.fingerprint from edges g
        ),
        counts as (
          select sum(h.events) as events, sum(h.errors) as errors, sum(h.failed_requests) as failed_requests from app_hourly h
          where h.app_key = any(keys) and h.hour_start >= (h0 + 1) * 3600000 and h.hour_start < hn * 3600000
          union all
          select count(*), count(*) filter (where g.type = 'error'), count(*) filter (where g.type = 'request') from edges g
        ),
        parts as (
          -- Late subjects whose next active hour (the link whose previous hour is h0) is not in F.
          select s.kind, count(*) as n from subjects s
          left join activity_hours a on a.app_key = any(keys) and a.kind = any('{u,i}'::text[]) and a.prev_hour = h0
            and a.app_key = s.app_key and a.kind = s.kind and a.subject = s.subject and a.hour < hn
          where s.is_late and a.subject is null group by s.kind
          union all
          -- The links in F that follow an hour of an earlier day than h0's: per day for the whole days, ...
          select c.kind, sum(c.links) from activity_by_prev_day c
          where c.app_key = any(keys) and c.kind = any('{u,i}'::text[]) and c.day > day0 and c.day < dayn and c.prev_day < day0
          group by c.kind
          union all
          -- ... per hour for the hours of h0's day and of hn's day, ...
          select c.kind, sum(c.links) from activity_by_hour c
          where c.app_key = any(keys) and c.kind = any('{u,i}'::text[]) and c.hour > h0 and c.hour < first_day_end and c.prev_day < day0
          group by c.kind
          union all
          select c.kind, sum(c.links) from activity_by_hour c
          where c.app_key = any(keys) and c.kind = any('{u,i}'::text[]) and c.hour >= last_day_start and c.hour < hn and c.prev_day < day0
          group by c.kind
          union all
          -- ... and those that follow an hour of h0's day, at or before h0, one by one.
          select a.kind, count(*) from activity_hours a
          where a.app_key = any(keys) and a.kind = any('{u,i}'::text[]) and a.prev_hour >= day0 * 24 and a.prev_hour <= h0
            and a.hour > h0 and a.hour < hn
          group by a.kind
          union all
          -- Early subjects with no active hour in F: hour hn follows an hour before h0, or h0 without being late.
          select s.kind, count(*) from subjects s
          join activity_hours p on p.app_key = any(keys) and p.kind = any('{u,i}'::text[]) and p.hour = hn
            and p.app_key = s.app_key and p.kind = s.kind and p.subject = s.subject
          where not s.is_late and (p.prev_hour < h0 or (p.prev_hour = h0 and not exists (
            select from subjects l where l.is_late and l.app_key = s.app_key and l.kind = s.kind and l.subject = s.subject)))
          group by s.kind
          union all
          -- Over all of an owner's apps, an id active in k > 1 of them was counted k times.
          select 'u', -coalesce(sum(r.k - 1), 0) from (
            select count(*) as k from owner_users o
            join app_users u on u.anonymous_id = o.anonymous_id and u.app_key = any(keys)
            where owner is not null and o.user_id = owner and o.apps > 1 and (
              exists (select from activity_hours a
                where a.app_key = u.app_key and a.kind = 'u' and a.subject = u.anonymous_id and a.hour > h0 and a.hour < hn)
              or exists (select from subjects s where s.kind = 'u' and s.app_key = u.app_key and s.subject = u.anonymous_id))
            group by o.anonymous_id) r
          where r.k > 1
        )
        select
          (select coalesce(sum(c.events), 0) from counts c)::int8,
          (select coalesce(sum(c.errors), 0) from counts c)::int8,
          (select coalesce(sum(c.failed_requests), 0) from counts c)::int8,
          (select coalesce(sum(p.n), 0) from parts p where p.kind = 'u')::int8,
          (select coalesce(sum(p.n), 0) from parts p where p.kind = 'i')::int8;
    end
    $fn$`;
