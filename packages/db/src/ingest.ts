// The write path. One SQL statement stores the events of one or many batches (of any apps) and moves every
// counter they touch: issues, distinct users, hourly and per-app totals. One round trip, one commit, and the hot
// issue rows stay locked only for that statement. EventWriter merges concurrent batches into such statements
// (group commit) and answers each batch once its statement has committed.
import { displayMessage, errorTypeOf, type StoredEvent } from '@collector/domain';
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

const STORE_EVENTS = (columns: unknown[][]) => sql<{ app_key: string; event_id: string }>`
  with src as (
    select * from unnest(
      ${columns[0]}::text[], ${columns[1]}::text[], ${columns[2]}::text[], ${columns[3]}::text[], ${columns[4]}::int8[],
      ${columns[5]}::int8[], ${columns[6]}::text[], ${columns[7]}::text[], ${columns[8]}::text[], ${columns[9]}::text[]
    ) as s(app_key, event_id, fingerprint, type, ts, received_at, anonymous_id, payload, message, error_type)
  ),
  ins as (
    insert into events (app_key, event_id, fingerprint, type, timestamp, received_at, anonymous_id, payload)
    select app_key, event_id, fingerprint, type, ts, received_at, anonymous_id, payload::jsonb from src
    order by app_key, event_id
    on conflict do nothing
    returning app_key, event_id, fingerprint, type, timestamp, anonymous_id
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
  upserted as (
    insert into issues (app_key, fingerprint, message, error_type, event_count, user_count, first_seen_at, last_seen_at)
    select d.app_key, d.fingerprint, first.message, first.error_type, d.events, coalesce(u.users, 0), d.first_seen, d.last_seen
    from issue_delta d
    cross join lateral (
      select s.message, s.error_type from src s where s.app_key = d.app_key and s.fingerprint = d.fingerprint order by s.ts limit 1
    ) first
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
  new_app_users as (
    insert into app_users (app_key, anonymous_id)
    select distinct app_key, anonymous_id from ins where anonymous_id is not null
    order by 1, 2
    on conflict do nothing
    returning app_key
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
      users = t.users + (select count(*) from new_app_users y where y.app_key = d.app_key)
    from app_delta d
    where t.app_key = d.app_key
  )
  select app_key, event_id from ins`;

/** Stores several batches in one statement; each batch learns how many of its events were new. */
export async function storeBatches(db: Kysely<Database>, batches: readonly Batch[]): Promise<StoreResult[]> {
  // The first copy of an (app, eventId) wins, across the batches of the group as within one, as ON CONFLICT DO NOTHING
  // does across statements; it belongs to the batch that sent it first.
  const owner = new Map<string, number>();
  const columns: unknown[][] = Array.from({ length: 10 }, () => []);
  batches.forEach((batch, index) => {
    for (const event of batch.events) {
      const key = `${batch.appKey}\u0000${event.eventId}`;
      if (owner.has(key)) continue;
      owner.set(key, index);
      const values = [
        batch.appKey,
        event.eventId,
        event.fingerprint,
        event.type,
        event.timestamp,
        batch.receivedAt,
        event.anonymousId ?? null,
        JSON.stringify(event),
        displayMessage(event),
        errorTypeOf(event),
      ];
      values.forEach((value, column) => columns[column]?.push(value));
    }
  });
  const stored = batches.map(() => 0);
  if (owner.size > 0) {
    const { rows } = await STORE_EVENTS(columns).execute(db);
    for (const row of rows) {
      const index = owner.get(`${row.app_key}\u0000${row.event_id}`);
      if (index !== undefined) stored[index] = (stored[index] ?? 0) + 1;
    }
  }
  return batches.map((batch, index) => ({ stored: stored[index] ?? 0, duplicates: batch.events.length - (stored[index] ?? 0) }));
}

/** Stores one batch: a group of one. */
export async function storeEvents(db: Kysely<Database>, appKey: string, events: readonly StoredEvent[], receivedAt: number): Promise<StoreResult> {
  const [result] = await storeBatches(db, [{ appKey, events, receivedAt }]);
  return result as StoreResult;
}
