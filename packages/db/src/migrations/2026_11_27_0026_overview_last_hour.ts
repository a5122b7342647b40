// overview_window() reads the last hour of a window from its active hours and app_hourly, rather than from its events,
// when that hour holds no event at or after the window's end and lost none (retention, the cap per issue): as when the
// window ends now, where the hour's events were every event of the last minutes (one app, 31,000 events in the current
// hour: 62 ms -> 6 ms; docs/performance.md). Likewise its first hour when none of its events lies before the window's
// start and none was deleted: a window that starts on the hour, as the dashboard's do. Otherwise it reads the events
// as before. The ids seen in several of an organization's apps are matched to the edges' users through one hash
// instead of a scan of them per id and app. And the function turns jit off for itself, as the collector's connections
// do, whoever calls it.
// Frozen once landed: a later change to windowed-counts.ts takes a migration of its own.
import { type Kysely, sql } from 'kysely';
import { overviewWindowAsOf0019 } from './2026_11_25_0019_org_users';

export async function up(db: Kysely<any>): Promise<void> {
  await overviewWindowAsOf0026.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await overviewWindowAsOf0019.execute(db);
}

/**
 * The function as this migration created it: windowed-counts.ts's createOverviewWindow as it was then, with its hour
 * (3,600,000 ms) and minute (60,000 ms) written out. The live source must stay equal to the latest such copy
 * (overview-window.test.ts): a change there takes a new migration with its own copy.
 */
export const overviewWindowAsOf0026 = sql`
  create or replace function overview_window(app_keys text[], owner_id text, window_start int8, window_end int8)
  returns table (window_events int8, window_errors int8, window_failed_requests int8, window_users int8, window_issues int8)
  language plpgsql stable
  -- The same plan whatever the window: its shape (index ranges, small hash joins) does not depend on the values.
  set plan_cache_mode = force_generic_plan
  -- Whoever calls it: that generic plan's estimated cost (~1.3 million, the correction over an organization's apps)
  -- had PostgreSQL's default settings compile it for ~1.4 s at every call. The collector's connections set jit off.
  set jit = off
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
    -- Whether last_hour's events all lie before window_end and none of them was deleted, as when the window ends now:
    -- the early subjects are then last_hour's active hours and its counts app_hourly's, read without its events.
    early_whole boolean;
    -- The end of the whole hours read from active hours: last_hour too when it is whole in that sense.
    hours_end int8;
    -- The same for first_hour: none of its events before window_start (a window starting on the hour, as the
    -- dashboard's do) and none deleted. Its active hours are then the late subjects.
    late_whole boolean;
    hours_start int8;
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
    early_whole := not exists (select from events e
        where e.app_key = any(app_keys) and e.timestamp >= window_end and e.timestamp < (last_hour + 1) * 3600000)
      and not exists (select from deleted_event_minutes m
        where m.app_key = any(app_keys) and m.minute >= last_hour * 3600000 / 60000 and m.minute < (last_hour + 1) * 3600000 / 60000);
    hours_end := case when early_whole then last_hour + 1 else last_hour end;
    late_whole := not exists (select from events e
        where e.app_key = any(app_keys) and e.timestamp >= first_hour * 3600000 and e.timestamp < window_start)
      and not exists (select from deleted_event_minutes m
        where m.app_key = any(app_keys) and m.minute >= first_hour * 3600000 / 60000 and m.minute < (first_hour + 1) * 3600000 / 60000);
    hours_start := case when late_whole then first_hour else first_hour + 1 end;
    return query
      with edge_events as (
        select e.app_key, e.type, e.anonymous_id, e.fingerprint, true as is_late from events e
        where not late_whole and e.app_key = any(app_keys) and e.timestamp >= window_start and e.timestamp < late_end
        union all
        select e.app_key, e.type, e.anonymous_id, e.fingerprint, false from events e
        where not early_whole and e.app_key = any(app_keys) and e.timestamp >= early_start and e.timestamp < window_end
      ),
      edge_subjects as (
        select g.is_late, g.app_key, 'user'::text as kind, g.anonymous_id as subject from edge_events g where g.anonymous_id is not null
        union
        select g.is_late, g.app_key, 'issue'::text, g.fingerprint from edge_events g
      ),
      counts as (
        select sum(h.events) as events, sum(h.errors) as errors, sum(h.failed_requests) as failed_requests from app_hourly h
        where h.app_key = any(app_keys) and h.hour_start >= hours_start * 3600000 and h.hour_start < hours_end * 3600000
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
        -- The same when first_hour is whole: its active hours are the late subjects.
        select p.kind, count(*) from activity_hours p
        left join activity_hours a on a.app_key = any(app_keys) and a.kind = any('{user,issue}'::text[]) and a.prev_hour = first_hour
          and a.app_key = p.app_key and a.kind = p.kind and a.subject = p.subject and a.hour < last_hour
        where late_whole and p.app_key = any(app_keys) and p.kind = any('{user,issue}'::text[]) and p.hour = first_hour and a.subject is null
        group by p.kind
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
        where not early_whole and not s.is_late and (p.prev_hour < first_hour or (p.prev_hour = first_hour and not late_whole and not exists (
          select from edge_subjects l where l.is_late and l.app_key = s.app_key and l.kind = s.kind and l.subject = s.subject)))
        group by s.kind
        union all
        -- The same when last_hour is whole: its active hours are the early subjects.
        select p.kind, count(*) from activity_hours p
        where early_whole and p.app_key = any(app_keys) and p.kind = any('{user,issue}'::text[]) and p.hour = last_hour
          and (p.prev_hour < first_hour or (p.prev_hour = first_hour and not late_whole and not exists (
          select from edge_subjects l where l.is_late and l.app_key = p.app_key and l.kind = p.kind and l.subject = p.subject)))
        group by p.kind
        union all
        -- Over all of an organization's apps, an id active in k > 1 of them was counted k times.
        select 'user', -coalesce(sum(r.apps - 1), 0) from (
          select count(*) as apps from org_users o
          join app_users u on u.anonymous_id = o.anonymous_id and u.app_key = any(app_keys)
          where owner_id is not null and o.org_id = owner_id and o.apps > 1 and (
            exists (select from activity_hours a
              where a.app_key = u.app_key and a.kind = 'user' and a.subject = u.anonymous_id and a.hour >= hours_start and a.hour < hours_end)
            -- Uncorrelated, so one hash of the edge's users rather than a scan of them per id and app.
            or (u.app_key, u.anonymous_id) in (select s.app_key, s.subject from edge_subjects s where s.kind = 'user'))
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
