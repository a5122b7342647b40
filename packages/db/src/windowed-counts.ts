// Windowed distinct counts: overview_window(), the overview's totals over a time window, as a PL/pgSQL function (its
// plan is kept per connection: planning the statement took longer than running it, 1.5 ms of 5 at 1M events). This is
// the live source; no code runs it. Each migration that creates the function (0006, 0007, 0008, 0014, 0019, 0026)
// keeps its own frozen copy of the text it ran. A change here is a change to the schema: it takes a new migration with
// its own copy of the new text (and of the one it replaces, for its down); migrations/overview-window.test.ts fails
// until the latest copy equals this text.
//
// What it reads, for the events with window_start <= timestamp < window_end:
//
// Events, errors and failed requests: whole hours from app_hourly; the partial hours at the edges, [window_start, end
// of its hour) and [start of window_end's hour, window_end), from the events (an index-only range each), plus the
// events deleted from those hours (retention, the cap per issue), which every deletion counts per app and minute in
// deleted_event_minutes: the minutes wholly inside the two ranges. So the counts are exact when the window's edges
// are whole minutes, or when nothing was deleted from the minute an edge cuts through.
//
// Distinct users and issues ("subjects"), from activity_hours (migration 0003, kept by write-path/activity.ts): per
// app, each subject's active hours, each linked to the subject's active hour before it. With first_hour =
// window_start's hour < last_hour = window_end's hour, and the whole hours between them (first_hour, last_hour), a
// subject active in the window counts once, by the first of these that applies:
//   "late": an event in [window_start, end of first_hour);
//   its next active hour after first_hour is a whole hour between: counted as the links there whose previous hour is
//     first_hour or earlier (each such subject has exactly one, its first in the whole hours): those whose previous
//     hour is on an earlier day than first_hour's from counts per day (activity_by_prev_day, for the whole days) and per
//     hour (activity_by_hour, for the hours of the first and last days), those whose previous hour is on first_hour's
//     day, at or before it, link by link;
//   "early": an event in [start of last_hour, window_end) and no whole hour between: its link at last_hour then follows
//     first_hour or an earlier hour.
// So: late subjects whose next hour is not a whole hour between (their link after first_hour says where it is), plus
// those links, plus early subjects whose hour last_hour follows an hour before first_hour, or first_hour without being
// late. Over all of an organization's apps, an anonymous id active in k > 1 of them was counted k times: the ids seen
// in several apps (org_users.apps > 1; usually few) are looked up one by one. When the window lies in one hour, the
// events are simply counted (plus its deleted minutes).
//
// Distinct users and issues of deleted events are not known: a window whose edge hours lost events counts the subjects
// of the events still stored there, a lower bound.
//
// The last hour's events are not read when none of them lies at or after window_end and none was deleted (as when the
// window ends now, or on the hour): its active hours are then exactly the early subjects, and its app_hourly row its
// counts, so it is counted as a whole hour, and its subjects by the "early" rule above. Likewise the first hour when
// none of its events lies before window_start and none was deleted (a window that starts on the hour, as the
// dashboard's do): its active hours are the late subjects.
//
// Cost: a few rows per day and per hour of the window's two partial days, the links that follow the hours of its first
// day before it starts, the events of its two partial hours (those not read as whole) and at most 120 deleted minutes
// per app; never a row per event or per user of the window. Over an organization's apps, a probe per app of each id
// seen in several of them.
import { HOUR } from '@collector/domain';
import { sql } from 'kysely';

const hour = sql.lit(HOUR);
/** deleted_event_minutes counts by minute: ms / 60,000. */
const minute = sql.lit(60_000);

/**
 * Creates (or replaces) overview_window(app_keys, owner_id, window_start, window_end). owner_id: the organization whose
 * apps app_keys are (its ids seen in several apps are counted once), null for one app. Named before organizations
 * existed (it was the account); a function's parameter cannot be renamed in place.
 */
export const createOverviewWindow = sql`
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
    first_hour int8 := window_start / ${hour};
    last_hour int8 := window_end / ${hour};
    first_day int8 := first_hour / 24;
    last_day int8 := last_hour / 24;
    -- The events read: [window_start, end of first_hour) ("late") and [start of last_hour, window_end) ("early"); the
    -- whole window when it lies within one hour.
    late_end int8 := least((first_hour + 1) * ${hour}, window_end);
    early_start int8 := greatest(last_hour * ${hour}, least((first_hour + 1) * ${hour}, window_end));
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
          where m.app_key = any(app_keys) and m.minute >= (window_start + ${minute} - 1) / ${minute} and m.minute < window_end / ${minute}
        ) d;
      return;
    end if;
    early_whole := not exists (select from events e
        where e.app_key = any(app_keys) and e.timestamp >= window_end and e.timestamp < (last_hour + 1) * ${hour})
      and not exists (select from deleted_event_minutes m
        where m.app_key = any(app_keys) and m.minute >= last_hour * ${hour} / ${minute} and m.minute < (last_hour + 1) * ${hour} / ${minute});
    hours_end := case when early_whole then last_hour + 1 else last_hour end;
    late_whole := not exists (select from events e
        where e.app_key = any(app_keys) and e.timestamp >= first_hour * ${hour} and e.timestamp < window_start)
      and not exists (select from deleted_event_minutes m
        where m.app_key = any(app_keys) and m.minute >= first_hour * ${hour} / ${minute} and m.minute < (first_hour + 1) * ${hour} / ${minute});
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
        where h.app_key = any(app_keys) and h.hour_start >= hours_start * ${hour} and h.hour_start < hours_end * ${hour}
        union all
        select count(*), count(*) filter (where g.type = 'error'), count(*) filter (where g.type = 'request') from edge_events g
        union all
        -- The deleted events of the minutes wholly inside the two partial hours.
        select sum(m.events), sum(m.errors), sum(m.failed_requests) from deleted_event_minutes m
        where m.app_key = any(app_keys) and m.minute >= (window_start + ${minute} - 1) / ${minute} and m.minute < late_end / ${minute}
        union all
        select sum(m.events), sum(m.errors), sum(m.failed_requests) from deleted_event_minutes m
        where m.app_key = any(app_keys) and m.minute >= (early_start + ${minute} - 1) / ${minute} and m.minute < window_end / ${minute}
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
