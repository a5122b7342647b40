// Events: the statement's input, and the insert that stores each new event once. An (app, eventId) already seen,
// before or by a concurrent statement, is left as it is (its claim in event_ids conflicts), even once its payload was
// deleted; a statement's input holds each once (batch.ts: a batch's later copies are dropped, a batch that repeats an
// earlier one's goes to a later statement), so the first copy sent is the one stored. Every counter counts new_events
// only.
import {
  contextsNameClient,
  culpritOf,
  DAY,
  displayMessage,
  errorTypeOf,
  type StoredEvent,
  type StoredPayload,
  storedPayload,
  tagsOf,
} from '@collector/domain';
import { sql } from 'kysely';
import { part, type StatementPart } from './part';

/** One row of the statement's input: the payload is the event as stored, nested (no string per event to escape). */
export interface EventRow {
  app_key: string;
  event_id: string;
  fingerprint: string;
  /** The previous grouping version's fingerprint when it differs: an existing issue under it takes the event. */
  previous_fingerprint: string | null;
  /** The grouping version that made `fingerprint`; null for a client's own fingerprint. */
  grouping: number | null;
  type: string;
  ts: number;
  received_at: number;
  anonymous_id: string | null;
  payload: StoredPayload;
  /** What the event's issue shows if the event is its first: see issues.ts. */
  message: string;
  error_type: string;
  culprit: string | null;
  /** What the event's issue shows if the event is its latest (level), and its filters (release, environment). */
  level: string | null;
  release: string | null;
  environment: string | null;
  /** With release and environment, what the breakdown counts (issues.ts); null when contexts name the client. */
  user_agent: string | null;
  /** The tags the event is counted and searched by (domain tagsOf); null when none. */
  tags: Record<string, string> | null;
  /** 'yes', 'no', or null when unknown: the handled facet. */
  handled: string | null;
}

export function eventRow(appKey: string, event: StoredEvent, receivedAt: number): EventRow {
  return {
    app_key: appKey,
    event_id: event.eventId,
    fingerprint: event.fingerprint,
    previous_fingerprint: event.previousFingerprint ?? null,
    grouping: event.grouping ?? null,
    type: event.type,
    ts: event.timestamp,
    received_at: receivedAt,
    anonymous_id: event.anonymousId ?? null,
    payload: storedPayload(event),
    message: displayMessage(event),
    error_type: errorTypeOf(event),
    culprit: culpritOf(event),
    level: event.level ?? null,
    release: event.release ?? null,
    environment: event.environment ?? null,
    // Contexts naming the browser or OS feed the breakdown through the tags, before the user agent does.
    user_agent: contextsNameClient(event.contexts) ? null : (event.userAgent ?? null),
    tags: nonEmpty(tagsOf(event)),
    handled: event.handled === true ? 'yes' : event.handled === false ? 'no' : null,
  };
}

function nonEmpty(tags: Record<string, string>): Record<string, string> | null {
  for (const _ in tags) return tags;
  return null;
}

// The rows travel as one JSON array (a JsonbArray of the rows' texts), parsed once by PostgreSQL, the payload column
// taken from it as jsonb. Ten parallel arrays cost more on both sides: in Node a string per payload, then pg escaping
// every element into an array literal; in PostgreSQL the array literals, then each payload parsed again as jsonb
// (docs/performance.md has the figures).
// The array is the statement's first parameter (the fault tests read it there).
export const eventParts: readonly StatementPart[] = [
  part({
    name: 'input_events',
    query: ({ rows }) => sql`select * from jsonb_to_recordset(${rows}::jsonb) as s(
      app_key text, event_id text, fingerprint text, previous_fingerprint text, grouping int2, type text, ts int8,
      received_at int8, anonymous_id text, payload jsonb, message text, error_type text, culprit text, level text,
      release text, environment text, user_agent text, tags jsonb, handled text
    )`,
  }),
  // Grouping versions: an event whose fingerprint changed with the current version goes to the issue of its previous
  // fingerprint when only that one exists, so an upgrade splits no issue (and alerts on no "new" one). Its payload then
  // names the fingerprint, and the alias (current fingerprint -> that issue's) is recorded (new_aliases), so the
  // issue keeps the event's later copies once their previous fingerprint changes too: a source-mapped event's previous
  // fingerprint is made of minified names, which change with every rebuild. An alias is read first. Index probes for
  // events with a previous fingerprint only; the others pass through.
  part({
    name: 'sent_events',
    reads: ['input_events'],
    query: sql`select s.app_key, s.event_id, r.fingerprint, s.grouping, s.type, s.ts, s.received_at, s.anonymous_id,
      case when r.fingerprint = s.fingerprint then s.payload
        else jsonb_set(s.payload, '{fingerprint}', to_jsonb(r.fingerprint)) end as payload,
      s.message, s.error_type, s.culprit, s.level, s.release, s.environment, s.user_agent, s.tags, s.handled,
      case when r.fingerprint = s.previous_fingerprint then s.fingerprint end as aliased_fingerprint
    from input_events s
    cross join lateral (select case
      when s.previous_fingerprint is null then s.fingerprint
      else coalesce(
        (select a.issue_fingerprint from fingerprint_aliases a
          where a.app_key = s.app_key and a.fingerprint = s.fingerprint),
        case when exists (select from issues k where k.app_key = s.app_key and k.fingerprint = s.fingerprint)
            or not exists (select from issues k where k.app_key = s.app_key and k.fingerprint = s.previous_fingerprint)
          then s.fingerprint else s.previous_fingerprint end)
      end as fingerprint) r`,
  }),
  // Once per (app, fingerprint), in key order like every insert that can lock; one already recorded stays.
  part({
    name: 'new_aliases',
    reads: ['sent_events'],
    writes: ['fingerprint_aliases'],
    query: sql`insert into fingerprint_aliases (app_key, fingerprint, issue_fingerprint, created_at)
    select distinct on (app_key, aliased_fingerprint) app_key, aliased_fingerprint, fingerprint, received_at
    from sent_events where aliased_fingerprint is not null
    order by app_key, aliased_fingerprint
    on conflict do nothing`,
  }),
  // What the foreign keys of events and event_ids to apps checked row by row, once a statement (migration 0025): each
  // app of the events locked in key-share mode (in key order, as every lock here), and only their ids claimed. A delete
  // of the app then waits for this statement, and its trigger deletes the events stored; an app deleted first gets no
  // event or id row.
  part({
    name: 'app_locks',
    reads: ['input_events'],
    query: sql`select app_key from apps where app_key in (select app_key from input_events)
    order by app_key for key share`,
  }),
  // Deduplication: events is partitioned by day (migration 0011) and cannot hold (app_key, event_id) unique, so each id
  // is claimed in event_ids, which remembers it after its payload is deleted (retention, the cap per issue): only the
  // ids claimed here are new. Claimed in key order, so concurrent statements lock alike.
  part({
    name: 'claimed_ids',
    reads: ['sent_events', 'app_locks'],
    writes: ['event_ids'],
    query: sql`insert into event_ids (app_key, event_id, day)
    select app_key, event_id, (ts / ${sql.lit(DAY)})::int4 from sent_events
    where app_key in (select app_key from app_locks)
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
