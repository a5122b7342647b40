// Who was active in which UTC hour ("subjects": an app's users and its issues), each hour linked to the same subject's
// active hour before it, and those links counted per day and per hour: what the overview's windowed distinct counts
// read (see windowed-counts.ts and migration 0003). Users and issues are kept alike; each kind keeps its own hour list.
import { HOUR } from '@collector/domain';
import { sql } from 'kysely';
import type { ActivityKind } from '../schema';
import { part, type StatementPart } from './part';

const hour = sql.lit(HOUR);

/** Where each kind of subject keeps its recent active hours (ascending), and the column that names the subject. */
const hourLists: Record<ActivityKind, { table: string; subject: string }> = {
  user: { table: 'app_users', subject: 'anonymous_id' },
  issue: { table: 'issue_hours', subject: 'fingerprint' },
};
const kinds = Object.keys(hourLists) as ActivityKind[];

/**
 * A subject this statement adds hours to is upserted, which locks its row and reads its hour list back as it now is,
 * committed writers included: every change to one subject's hours is decided there, one statement at a time, so links
 * and counts stay exact when statements write the same subject at once. A subject that already has every hour (as this
 * statement's snapshot shows; hours are never removed) is left alone, unlocked: the common case costs one index probe.
 * Returns each changed subject's whole list, and whether the row is new (for users: a new user of the app).
 */
function hourListChanges(kind: ActivityKind): StatementPart {
  const table = sql.table(hourLists[kind].table);
  const subject = sql.id(hourLists[kind].subject);
  return part({
    name: `${kind}_hour_changes`,
    reads: ['batch_hour_lists', 'hour_list_start'],
    writes: [hourLists[kind].table],
    query: sql`insert into ${table} as stored (app_key, ${subject}, hours)
    select b.app_key, b.subject, b.hours from batch_hour_lists b
    where b.kind = ${sql.lit(kind)} and not exists (
      select from ${table} k where k.app_key = b.app_key and k.${subject} = b.subject and k.hours @> b.hours)
    order by 1, 2
    on conflict (app_key, ${subject}) do update set hours = merge_hours(stored.hours, excluded.hours, (select keep_from from hour_list_start))
    where not stored.hours @> excluded.hours
    returning app_key, ${subject} as subject, hours, xmax = 0 as created`,
  });
}

export const activityParts: readonly StatementPart[] = [
  part({
    name: 'active_hours',
    reads: ['new_events'],
    query: sql`select distinct app_key, 'user'::text as kind, anonymous_id as subject, (timestamp / ${hour})::int4 as hour from new_events where anonymous_id is not null
    union
    select distinct app_key, 'issue'::text, fingerprint, (timestamp / ${hour})::int4 from new_events`,
  }),
  part({
    name: 'batch_hour_lists',
    reads: ['active_hours'],
    query: sql`select app_key, kind, subject, array_agg(hour order by hour) as hours from active_hours group by app_key, kind, subject`,
  }),
  // keepFrom: the oldest hour an event still to come can bring (ingest.ts); lists keep the hours from it on and the one
  // before.
  part({
    name: 'hour_list_start',
    reads: ['active_hours'],
    query: ({ keepFrom }) => sql`select least(${keepFrom}::int4, min(hour)) as keep_from from active_hours`,
  }),
  ...kinds.map(hourListChanges),
  part({
    name: 'hour_list_changes',
    reads: kinds.map((kind) => `${kind}_hour_changes`),
    query: sql.join(
      kinds.map(
        (kind) =>
          sql`select app_key, ${sql.lit(kind)}::text as kind, subject, hours from ${sql.id(`${kind}_hour_changes`)}`,
      ),
      sql`\n    union all\n    `,
    ),
  }),
  // Every hour in a subject's list has its row here, written with it: the insert tells which hours are new.
  part({
    name: 'new_links',
    reads: ['hour_list_changes', 'active_hours'],
    writes: ['activity_hours'],
    query: sql`insert into activity_hours (app_key, kind, subject, hour, prev_hour)
    select c.app_key, c.kind, c.subject, b.hour, coalesce((select max(h) from unnest(c.hours) h where h < b.hour), -1)
    from hour_list_changes c join active_hours b on b.app_key = c.app_key and b.kind = c.kind and b.subject = c.subject
    order by 1, 2, 3, 4
    on conflict do nothing
    returning app_key, kind, subject, hour, prev_hour`,
  }),
  part({
    name: 'new_hours',
    reads: ['new_links'],
    query: sql`select app_key, kind, subject, array_agg(hour) as hours from new_links group by app_key, kind, subject`,
  }),
  // A new hour before hours already stored (a late event) becomes the previous hour of the next stored one.
  part({
    name: 'relinks',
    reads: ['new_hours', 'hour_list_changes'],
    query: sql`select c.app_key, c.kind, c.subject, s.hour,
      coalesce((select max(h) from unnest(c.hours) h where h < s.hour and h <> all (n.hours)), -1) as old_prev,
      coalesce((select max(h) from unnest(c.hours) h where h < s.hour), -1) as new_prev
    from new_hours n
    join hour_list_changes c on c.app_key = n.app_key and c.kind = n.kind and c.subject = n.subject
    cross join lateral (select distinct (select min(h) from unnest(c.hours) h where h > added) as hour from unnest(n.hours) added) s
    where s.hour <> all (n.hours)`,
  }),
  // An upsert rather than an update: the stored row may be newer than this statement's snapshot (the lock taken in
  // the hour list changes waited for its writer), and only ON CONFLICT sees it.
  part({
    name: 'relinked',
    reads: ['relinks'],
    writes: ['activity_hours'],
    query: sql`insert into activity_hours (app_key, kind, subject, hour, prev_hour)
    select app_key, kind, subject, hour, new_prev from relinks
    order by 1, 2, 3, 4
    on conflict (app_key, kind, subject, hour) do update set prev_hour = excluded.prev_hour`,
  }),
  part({
    name: 'link_changes',
    reads: ['new_links', 'relinks'],
    query: sql`select app_key, kind, hour, hour / 24 as day, prev_hour, 1 as links from new_links
    union all select app_key, kind, hour, hour / 24, old_prev, -1 from relinks
    union all select app_key, kind, hour, hour / 24, new_prev, 1 from relinks`,
  }),
  linkCounts('links_by_prev_day', 'activity_by_prev_day', 'day'),
  linkCounts('links_by_hour', 'activity_by_hour', 'hour'),
];

/** The link changes summed into the ledger of link counts per day or per hour, by the day of the previous hour (-1: none). */
function linkCounts(name: string, table: string, per: 'day' | 'hour'): StatementPart {
  const column = sql.id(per);
  return part({
    name,
    reads: ['link_changes'],
    writes: [`${table}_deltas`],
    query: sql`insert into ${sql.table(`${table}_deltas`)} (app_key, kind, ${column}, prev_day, links)
    select app_key, kind, ${column}, case when prev_hour < 0 then -1 else prev_hour / 24 end, sum(links) from link_changes
    group by 1, 2, 3, 4 having sum(links) <> 0`,
  });
}
