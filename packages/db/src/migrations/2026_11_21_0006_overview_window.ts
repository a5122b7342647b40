// The overview's totals over a time window, as a function: the query reads a dozen index ranges, and planning it
// took longer than running it (1.5 ms of 5 at 1M events). A PL/pgSQL function keeps its plan for the session, so the
// statement is parsed and planned once per connection. Frozen once landed: this copy is what the migration ran.
// Migrations 0007, 0008 and 0014 replaced it, each from its own copy; windowed-counts.ts is the live source.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create function overview_window(keys text[], owner text, t1 int8, t2 int8)
    returns table (w_events int8, w_errors int8, w_failed_requests int8, w_users int8, w_issues int8)
    language plpgsql stable
    -- The same plan whatever the window: its shape (index ranges, small hash joins) does not depend on the values.
    set plan_cache_mode = force_generic_plan
    as $fn$
    declare
      h0 int8 := t1 / 3600000;
      hn int8 := t2 / 3600000;
      day0 int8 := h0 / 24;
      dayn int8 := hn / 24;
      -- The events read: [t1, end of h0) ("late") and [start of hn, t2) ("early"); all of [t1, t2) within one hour.
      late_end int8 := least((h0 + 1) * 3600000, t2);
      early_start int8 := greatest(hn * 3600000, least((h0 + 1) * 3600000, t2));
      -- The whole hours F = (h0, hn): the rest of h0's day, whole days (day0, dayn), the start of hn's day.
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
          -- The links in F that follow an hour before the window, ...
          select a.kind, count(*) from activity_hours a
          where a.app_key = any(keys) and a.kind = any('{u,i}'::text[]) and a.hour > h0 and a.hour < first_day_end and a.prev_hour <= h0
          group by a.kind
          union all
          select a.kind, count(*) from activity_hours a
          where a.app_key = any(keys) and a.kind = any('{u,i}'::text[]) and a.hour >= last_day_start and a.hour < hn and a.prev_hour <= h0
          group by a.kind
          union all
          -- ... counted per day for the whole days.
          select c.kind, sum(c.links) from activity_by_prev_day c
          where c.app_key = any(keys) and c.kind = any('{u,i}'::text[]) and c.day > day0 and c.day < dayn and c.prev_day < day0
          group by c.kind
          union all
          select c.kind, sum(c.links) from activity_by_prev_hour c
          where c.app_key = any(keys) and c.kind = any('{u,i}'::text[]) and c.prev_hour >= day0 * 24 and c.prev_hour <= h0
            and c.day > day0 and c.day < dayn
          group by c.kind
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
    $fn$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop function if exists overview_window(text[], text, int8, int8)`.execute(db);
}
