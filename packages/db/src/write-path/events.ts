// Events: the statement's input, and the insert that stores each new event once. An (app, eventId) already seen,
// before or by a concurrent statement, is left as it is (its claim in event_ids conflicts), even once its payload was
// deleted; a statement's input holds each once (batch.ts: a batch's later copies are dropped, a batch that repeats an
// earlier one's goes to a later statement), so the first copy sent is the one stored. Every counter counts new_events
// only.
import { culpritOf, DAY, displayMessage, errorTypeOf, type StoredEvent } from '@collector/domain';
import { sql } from 'kysely';
import { part, type StatementPart } from './part';

/** One row of the statement's input: the payload is the event itself, nested (no string per event to escape). */
export interface EventRow {
  app_key: string;
  event_id: string;
  fingerprint: string;
  type: string;
  ts: number;
  received_at: number;
  anonymous_id: string | null;
  payload: StoredEvent;
  /** What the event's issue shows if the event is its first: see issues.ts. */
  message: string;
  error_type: string;
  culprit: string | null;
  /** What the event's issue shows if the event is its latest (level), and its filters (release, environment). */
  level: string | null;
  release: string | null;
  environment: string | null;
  /** With release and environment, what the breakdown counts (issues.ts). */
  user_agent: string | null;
}

export function eventRow(appKey: string, event: StoredEvent, receivedAt: number): EventRow {
  return {
    app_key: appKey,
    event_id: event.eventId,
    fingerprint: event.fingerprint,
    type: event.type,
    ts: event.timestamp,
    received_at: receivedAt,
    anonymous_id: event.anonymousId ?? null,
    payload: event,
    message: displayMessage(event),
    error_type: errorTypeOf(event),
    culprit: culpritOf(event),
    level: event.level ?? null,
    release: event.release ?? null,
    environment: event.environment ?? null,
    user_agent: event.userAgent ?? null,
  };
}

// The rows travel as one JSON array, parsed once by PostgreSQL, the payload column taken from it as jsonb. Ten parallel
// arrays cost more on both sides: in Node a string per payload, then pg escaping every element into an array literal;
// in PostgreSQL the array literals, then each payload parsed again as jsonb (docs/performance.md has the figures).
// The array is the statement's first parameter (the fault tests read it there).
export const eventParts: readonly StatementPart[] = [
  part({
    name: 'sent_events',
    query: ({ rowsJson }) => sql`select * from jsonb_to_recordset(${rowsJson}::jsonb) as s(
      app_key text, event_id text, fingerprint text, type text, ts int8, received_at int8, anonymous_id text, payload jsonb,
      message text, error_type text, culprit text, level text, release text, environment text, user_agent text
    )`,
  }),
  // Deduplication: events is partitioned by day (migration 0011) and cannot hold (app_key, event_id) unique, so each id
  // is claimed in event_ids, which remembers it after its payload is deleted (retention, the cap per issue): only the
  // ids claimed here are new. Claimed in key order, so concurrent statements lock alike.
  part({
    name: 'claimed_ids',
    reads: ['sent_events'],
    writes: ['event_ids'],
    query: sql`insert into event_ids (app_key, event_id, day)
    select app_key, event_id, (ts / ${sql.lit(DAY)})::int4 from sent_events
    order by app_key, event_id
    on conflict do nothing
    returning app_key, event_id`,
  }),
  part({
    name: 'new_events',
    reads: ['sent_events', 'claimed_ids'],
    writes: ['events'],
    query: sql`insert into events (app_key, event_id, fingerprint, type, timestamp, received_at, anonymous_id, payload)
    select s.app_key, s.event_id, s.fingerprint, s.type, s.ts, s.received_at, s.anonymous_id, s.payload
    from sent_events s join claimed_ids c on c.app_key = s.app_key and c.event_id = s.event_id
    returning app_key, event_id, fingerprint, type, timestamp, anonymous_id, received_at`,
  }),
];
