// The write path. One SQL statement stores the events of one or many batches (of any apps) and moves every
// counter they touch: issues, distinct users (per issue, app and owner, and each user's active hours), hourly and
// per-app totals. One round trip, one commit, and the hot issue rows stay locked only for that statement.
// EventWriter merges concurrent batches into such statements (group commit) and answers each batch once its
// statement has committed.
import { displayMessage, errorTypeOf, limits, type StoredEvent } from '@collector/domain';
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema';

export interface StoreResult {
  /** Events written by this batch. */
  stored: number;
  /** Events whose eventId was already stored (before, or earlier in the same batch or group). */
  duplicates: number;
}

export interface Batch {
  appKey: string;
  events: readonly StoredEvent[];
  receivedAt: number;
}

const HOUR = 3_600_000;

/** One row of the statement's input: the payload is the event itself, nested (no string per event to escape). */
interface SourceRow {
  app_key: string;
  event_id: string;
  fingerprint: string;
  type: string;
  ts: number;
  received_at: number;
  anonymous_id: string | null;
  payload: StoredEvent;
  message: string;
  error_type: string;
}

// The rows travel as one JSON array, parsed once by PostgreSQL, the payload column taken from it as jsonb. Ten parallel
// arrays cost more on both sides: in Node a string per payload, then pg escaping every element into an array literal;
// in PostgreSQL the array literals, then each payload parsed again as jsonb (docs/performance.md has the figures).
const STORE_EVENTS = (rowsJson: string, receivedJson: string, keepFrom: number) => sql<{ app_key: string; event_id: string }>`
  with src as (
    select * from jsonb_to_recordset(${rowsJson}::jsonb) as s(
      app_key text, event_id text, fingerprint text, type text, ts int8, received_at int8, anonymous_id text, payload jsonb,
      message text, error_type text
    )
  ),
  -- Deduplication: events is partitioned by day and cannot hold (app_key, event_id) unique, so every id is claimed in
  -- event_ids (migration 0011), which remembers it after its payload is deleted; only the ids claimed here are new.
  new_ids as (
    insert into event_ids (app_key, event_id, day)
    select app_key, event_id, (ts / 86400000)::int4 from src
    order by app_key, event_id
    on conflict do nothing
    returning app_key, event_id
  ),
  ins as (
    insert into events (app_key, event_id, fingerprint, type, timestamp, received_at, anonymous_id, payload)
    select s.app_key, s.event_id, s.fingerprint, s.type, s.ts, s.received_at, s.anonymous_id, s.payload from src s
    join new_ids n on n.app_key = s.app_key and n.event_id = s.event_id
    returning app_key, event_id, fingerprint, type, timestamp, anonymous_id, received_at
  ),
  -- Outcomes per app and hour of receipt: the events of the statement's batches (repeats within the group included),
  -- of which those stored now are accepted and the rest duplicates. Committed with the events they count.
  received as (
    select * from jsonb_to_recordset(${receivedJson}::jsonb) as r(app_key text, hour_start int8, events int8)
  ),
  stored_by_hour as (
    select app_key, (received_at / 3600000) * 3600000 as hour_start, count(*) as events from ins group by 1, 2
  ),
  outcome_delta as (
    select r.app_key, r.hour_start, 'accepted'::text as reason, coalesce(s.events, 0) as events
    from received r left join stored_by_hour s on s.app_key = r.app_key and s.hour_start = r.hour_start
    union all
    select r.app_key, r.hour_start, 'duplicate', r.events - coalesce(s.events, 0)
    from received r left join stored_by_hour s on s.app_key = r.app_key and s.hour_start = r.hour_start
  ),
  outcomes_counted as (
    insert into outcomes as o (app_key, hour_start, reason, events)
    select app_key, hour_start, reason, events from outcome_delta where events > 0
    order by 1, 2, 3
    on conflict (app_key, hour_start, reason) do update set events = o.events + excluded.events
  ),
  new_issue_users as (
    insert into issue_users (app_key, fingerprint, anonymous_id)
    select distinct app_key, fingerprint, anonymous_id from ins where anonymous_id is not null
    order by 1, 2, 3
    on conflict do nothing
    returning app_key, fingerprint
  ),
  issue_delta as (
    select app_key, fingerprint, count(*) as events, min(timestamp) as first_seen, max(timestamp) as last_seen
    from ins group by app_key, fingerprint
  ),
  -- What a new issue shows: its earliest event's message. One sort of the statement's events, not a scan per issue.
  first_of_issue as (
    select distinct on (app_key, fingerprint) app_key, fingerprint, message, error_type from src order by app_key, fingerprint, ts
  ),
  upserted as (
    insert into issues (app_key, fingerprint, message, error_type, event_count, user_count, first_seen_at, last_seen_at)
    select d.app_key, d.fingerprint, f.message, f.error_type, d.events, coalesce(u.users, 0), d.first_seen, d.last_seen
    from issue_delta d
    join first_of_issue f on f.app_key = d.app_key and f.fingerprint = d.fingerprint
    left join (select app_key, fingerprint, count(*) as users from new_issue_users group by 1, 2) u
      on u.app_key = d.app_key and u.fingerprint = d.fingerprint
    order by d.app_key, d.fingerprint
    on conflict (app_key, fingerprint) do update set
      event_count = issues.event_count + excluded.event_count,
      user_count = issues.user_count + excluded.user_count,
      first_seen_at = least(issues.first_seen_at, excluded.first_seen_at),
      last_seen_at = greatest(issues.last_seen_at, excluded.last_seen_at)
    -- xmax is 0 only on a row this statement inserted: that is how new issues are told from updated ones.
    returning app_key, xmax = 0 as created
  ),
  -- Who was active in which hour: users and issues ("subjects"), for the overview's windowed distinct counts (see
  -- migration 0003). A subject this statement adds hours to is upserted, which locks its row and reads its hour list
  -- back as it now is, committed writers included: every change to one subject's hours is decided there, one statement
  -- at a time, so links and counts stay exact when statements write the same subject at once. A subject that already
  -- has every hour (as this statement's snapshot shows; hours are never removed) is left alone, unlocked: the common
  -- case costs one index probe. Lists keep the hours from keep_from on (and the one before): new hours never precede it.
  subject_hours as (
    select distinct app_key, 'u'::text as kind, anonymous_id as subject, (timestamp / 3600000)::int4 as hour from ins where anonymous_id is not null
    union
    select distinct app_key, 'i'::text, fingerprint, (timestamp / 3600000)::int4 from ins
  ),
  batch_subjects as (
    select app_key, kind, subject, array_agg(hour order by hour) as hours from subject_hours group by app_key, kind, subject
  ),
  keep as (select least(${keepFrom}::int4, min(hour)) as keep_from from subject_hours),
  user_changes as (
    insert into app_users as u (app_key, anonymous_id, hours)
    select b.app_key, b.subject, b.hours from batch_subjects b
    where b.kind = 'u' and not exists (select from app_users k where k.app_key = b.app_key and k.anonymous_id = b.subject and k.hours @> b.hours)
    order by 1, 2
    on conflict (app_key, anonymous_id) do update set hours = merge_hours(u.hours, excluded.hours, (select keep_from from keep))
    where not u.hours @> excluded.hours
    returning app_key, anonymous_id, hours, xmax = 0 as created
  ),
  issue_changes as (
    insert into issue_hours as i (app_key, fingerprint, hours)
    select b.app_key, b.subject, b.hours from batch_subjects b
    where b.kind = 'i' and not exists (select from issue_hours k where k.app_key = b.app_key and k.fingerprint = b.subject and k.hours @> b.hours)
    order by 1, 2
    on conflict (app_key, fingerprint) do update set hours = merge_hours(i.hours, excluded.hours, (select keep_from from keep))
    where not i.hours @> excluded.hours
    returning app_key, fingerprint, hours
  ),
  changes as (
    select app_key, 'u'::text as kind, anonymous_id as subject, hours from user_changes
    union all
    select app_key, 'i'::text, fingerprint, hours from issue_changes
  ),
  -- Every hour in a subject's list has its row here, written with it: the insert tells which hours are new.
  new_links as (
    insert into activity_hours (app_key, kind, subject, hour, prev_hour)
    select c.app_key, c.kind, c.subject, b.hour, coalesce((select max(h) from unnest(c.hours) h where h < b.hour), -1)
    from changes c join subject_hours b on b.app_key = c.app_key and b.kind = c.kind and b.subject = c.subject
    order by 1, 2, 3, 4
    on conflict do nothing
    returning app_key, kind, subject, hour, prev_hour
  ),
  added as (
    select app_key, kind, subject, array_agg(hour) as hours from new_links group by app_key, kind, subject
  ),
  -- A new hour before hours already stored (a late event) becomes the previous hour of the next stored one.
  relinks as (
    select c.app_key, c.kind, c.subject, s.hour,
      coalesce((select max(h) from unnest(c.hours) h where h < s.hour and h <> all (a.hours)), -1) as old_prev,
      coalesce((select max(h) from unnest(c.hours) h where h < s.hour), -1) as new_prev
    from added a
    join changes c on c.app_key = a.app_key and c.kind = a.kind and c.subject = a.subject
    cross join lateral (select distinct (select min(h) from unnest(c.hours) h where h > n) as hour from unnest(a.hours) n) s
    where s.hour <> all (a.hours)
  ),
  -- An upsert rather than an update: the stored row may be newer than this statement's snapshot (the lock taken
  -- above waited for its writer), and only ON CONFLICT sees it.
  relinked as (
    insert into activity_hours (app_key, kind, subject, hour, prev_hour)
    select app_key, kind, subject, hour, new_prev from relinks
    order by 1, 2, 3, 4
    on conflict (app_key, kind, subject, hour) do update set prev_hour = excluded.prev_hour
  ),
  link_delta as (
    select app_key, kind, hour, hour / 24 as day, prev_hour, 1 as links from new_links
    union all select app_key, kind, hour, hour / 24, old_prev, -1 from relinks
    union all select app_key, kind, hour, hour / 24, new_prev, 1 from relinks
  ),
  links_by_prev_day as (
    insert into activity_by_prev_day as t (app_key, kind, day, prev_day, links)
    select app_key, kind, day, case when prev_hour < 0 then -1 else prev_hour / 24 end, sum(links) from link_delta
    group by 1, 2, 3, 4 having sum(links) <> 0 order by 1, 2, 3, 4
    on conflict (app_key, kind, day, prev_day) do update set links = t.links + excluded.links
  ),
  links_by_hour as (
    insert into activity_by_hour as t (app_key, kind, hour, prev_day, links)
    select app_key, kind, hour, case when prev_hour < 0 then -1 else prev_hour / 24 end, sum(links) from link_delta
    group by 1, 2, 3, 4 having sum(links) <> 0 order by 1, 2, 3, 4
    on conflict (app_key, kind, hour, prev_day) do update set links = t.links + excluded.links
  ),
  -- Distinct ids over all of an owner's apps: only an id new to an app can be new to its owner.
  new_owner_users as (
    insert into owner_users as o (user_id, anonymous_id, apps)
    select a.user_id, c.anonymous_id, count(*) from user_changes c join apps a on a.app_key = c.app_key
    where c.created
    group by 1, 2 order by 1, 2
    on conflict (user_id, anonymous_id) do update set apps = o.apps + excluded.apps
    returning user_id, xmax = 0 as created
  ),
  owner_delta as (
    insert into owner_totals as t (user_id, users)
    select user_id, count(*) from new_owner_users where created group by 1 order by 1
    on conflict (user_id) do update set users = t.users + excluded.users
  ),
  hourly as (
    insert into app_hourly (app_key, hour_start, events, errors, failed_requests)
    select app_key, (timestamp / 3600000) * 3600000, count(*), count(*) filter (where type = 'error'), count(*) filter (where type = 'request')
    from ins group by 1, 2 order by 1, 2
    on conflict (app_key, hour_start) do update set
      events = app_hourly.events + excluded.events,
      errors = app_hourly.errors + excluded.errors,
      failed_requests = app_hourly.failed_requests + excluded.failed_requests
  ),
  app_delta as (
    select app_key, count(*) as events, count(*) filter (where type = 'error') as errors, count(*) filter (where type = 'request') as failed_requests
    from ins group by app_key
  ),
  totals as (
    update app_totals t set
      events = t.events + d.events,
      errors = t.errors + d.errors,
      failed_requests = t.failed_requests + d.failed_requests,
      issues = t.issues + (select count(*) from upserted x where x.app_key = d.app_key and x.created),
      users = t.users + (select count(*) from user_changes y where y.app_key = d.app_key and y.created)
    from app_delta d
    where t.app_key = d.app_key
  )
  select app_key, event_id from ins`;

/**
 * A batch made ready for the statement: each event's row serialised at once. EventWriter prepares a batch when it
 * arrives, so the event objects die young instead of waiting in the queue for a statement (under load, long enough
 * for V8 to copy them into the old generation and collect them there, its costliest work in the profiles).
 */
export interface PreparedBatch {
  appKey: string;
  receivedAt: number;
  eventIds: readonly string[];
  /** Each event's row of the statement's input, as JSON. */
  rows: readonly string[];
}

export function prepareBatch(batch: Batch): PreparedBatch {
  const eventIds: string[] = [];
  const rows: string[] = [];
  for (const event of batch.events) {
    const row: SourceRow = {
      app_key: batch.appKey,
      event_id: event.eventId,
      fingerprint: event.fingerprint,
      type: event.type,
      ts: event.timestamp,
      received_at: batch.receivedAt,
      anonymous_id: event.anonymousId ?? null,
      payload: event,
      message: displayMessage(event),
      error_type: errorTypeOf(event),
    };
    eventIds.push(event.eventId);
    rows.push(JSON.stringify(row));
  }
  return { appKey: batch.appKey, receivedAt: batch.receivedAt, eventIds, rows };
}

/** Stores several batches in one statement; each batch learns how many of its events were new. */
export async function storePreparedBatches(db: Kysely<Database>, batches: readonly PreparedBatch[]): Promise<StoreResult[]> {
  // The first copy of an (app, eventId) wins, across the batches of the group as within one, as ON CONFLICT DO NOTHING
  // does across statements; it belongs to the batch that sent it first.
  const owner = new Map<string, number>();
  const rows: string[] = [];
  batches.forEach((batch, index) => {
    batch.eventIds.forEach((eventId, i) => {
      const key = `${batch.appKey}\u0000${eventId}`;
      if (owner.has(key)) return;
      owner.set(key, index);
      rows.push(batch.rows[i] as string);
    });
  });
  const stored = batches.map(() => 0);
  // Events received per app and hour of receipt, every copy counted: the statement splits them into accepted and duplicate.
  const received = new Map<string, { app_key: string; hour_start: number; events: number }>();
  for (const batch of batches) {
    const hourStart = Math.floor(batch.receivedAt / HOUR) * HOUR;
    const key = `${batch.appKey}\u0000${hourStart}`;
    const entry = received.get(key) ?? { app_key: batch.appKey, hour_start: hourStart, events: 0 };
    entry.events += batch.eventIds.length;
    received.set(key, entry);
  }
  if (rows.length > 0) {
    // Hour lists keep what any event still to come can need: none is older than maxEventAgeMs when received (a margin
    // of two days covers batches waiting in a queue and clocks that disagree).
    const keepFrom = Math.floor((Math.min(...batches.map((batch) => batch.receivedAt)) - limits.maxEventAgeMs) / HOUR) - 48;
    const { rows: inserted } = await STORE_EVENTS(`[${rows.join(',')}]`, JSON.stringify([...received.values()]), keepFrom).execute(db);
    for (const row of inserted) {
      const index = owner.get(`${row.app_key}\u0000${row.event_id}`);
      if (index !== undefined) stored[index] = (stored[index] ?? 0) + 1;
    }
  }
  return batches.map((batch, index) => ({ stored: stored[index] ?? 0, duplicates: batch.eventIds.length - (stored[index] ?? 0) }));
}

export async function storeBatches(db: Kysely<Database>, batches: readonly Batch[]): Promise<StoreResult[]> {
  return storePreparedBatches(db, batches.map(prepareBatch));
}

/** Stores one batch: a group of one. */
export async function storeEvents(db: Kysely<Database>, appKey: string, events: readonly StoredEvent[], receivedAt: number): Promise<StoreResult> {
  const [result] = await storeBatches(db, [{ appKey, events, receivedAt }]);
  return result as StoreResult;
}
