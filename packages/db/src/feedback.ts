// User feedback: stored as the Sentry endpoints receive it, listed per issue and per app (migration 0021).
import { DAY, type FeedbackInput } from '@collector/domain';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from './schema';

export interface FeedbackRow {
  id: number;
  kind: string;
  event_id: string | null;
  fingerprint: string | null;
  name: string | null;
  email: string | null;
  message: string;
  url: string | null;
  received_at: number;
}

const day = sql.lit(DAY);

/**
 * The issue of an event already stored, by its id: event_ids tells the day of its timestamp, so only that day's
 * partition of events is read (events has no index by event id; the write path would pay for one on every event).
 * Null when the event is not stored (yet, or any more).
 */
const issueOfStoredEvent = (appKey: string, eventId: RawBuilder<unknown>) =>
  sql`(select e.fingerprint from event_ids i join events e on e.app_key = i.app_key and e.event_id = i.event_id
      and e.timestamp >= i.day::int8 * ${day} and e.timestamp < (i.day::int8 + 1) * ${day}
    where i.app_key = ${appKey} and i.event_id = ${eventId} limit 1)`;

/**
 * Stores an app's feedback, once per item (a retry is skipped), linked to its event's issue if that event is stored.
 * A feedback whose event comes later is linked by the write statement when it does (write-path/feedback.ts).
 */
export async function storeFeedback(
  db: Kysely<Database>,
  appKey: string,
  items: readonly FeedbackInput[],
  receivedAt: number,
): Promise<void> {
  if (items.length === 0) return;
  const rows = items.map((item) => ({
    kind: item.kind,
    source_id: item.sourceId,
    event_id: item.eventId,
    name: item.name,
    email: item.email,
    message: item.message,
    url: item.url,
  }));
  await sql`insert into feedback (app_key, kind, source_id, event_id, fingerprint, name, email, message, url, received_at)
    select ${appKey}, r.kind, r.source_id, r.event_id,
      ${issueOfStoredEvent(appKey, sql.ref('r.event_id'))},
      r.name, r.email, r.message, r.url, ${receivedAt}::int8
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      as r(kind text, source_id text, event_id text, name text, email text, message text, url text)
    -- An app deleted meanwhile has nothing to keep feedback for.
    where exists (select from apps a where a.app_key = ${appKey})
    on conflict (app_key, kind, source_id) do nothing`.execute(db);
}

const columns = sql`f.id, f.kind, f.event_id, f.fingerprint, f.name, f.email, f.message, f.url, f.received_at`;

/** Newest first, `limit + 1` rows (the last one only says there is more), before the id `before` when given. */
export interface FeedbackPage {
  before?: number | undefined;
  limit: number;
}

/**
 * An issue's feedback: linked to it, or still waiting for a link although its event is stored in this issue. The
 * second case is the rare race of a feedback and its event committed at once, neither seeing the other; resolved here
 * by event id, which costs a probe per such feedback into the issue's events of one day.
 */
export async function listIssueFeedback(
  db: Kysely<Database>,
  query: { appKey: string; fingerprint: string } & FeedbackPage,
): Promise<FeedbackRow[]> {
  const { appKey, fingerprint, limit } = query;
  const before = query.before === undefined ? sql`` : sql`and f.id < ${query.before}`;
  const { rows } = await sql<FeedbackRow>`
    select * from (
      (select ${columns} from feedback f
        where f.app_key = ${appKey} and f.fingerprint = ${fingerprint} ${before}
        order by f.id desc limit ${limit + 1})
      union all
      (select ${columns} from feedback f
        join event_ids i on i.app_key = f.app_key and i.event_id = f.event_id
        where f.app_key = ${appKey} and f.fingerprint is null and f.event_id is not null ${before}
          and exists (select from events e where e.app_key = f.app_key and e.fingerprint = ${fingerprint}
            and e.timestamp >= i.day::int8 * ${day} and e.timestamp < (i.day::int8 + 1) * ${day}
            and e.event_id = f.event_id)
        order by f.id desc limit ${limit + 1})
    ) found
    order by id desc limit ${limit + 1}`.execute(db);
  return rows.map((row) => ({ ...row, id: Number(row.id) }));
}

/** An app's feedback, newest first, whatever it is about. */
export async function listAppFeedback(
  db: Kysely<Database>,
  query: { appKey: string } & FeedbackPage,
): Promise<FeedbackRow[]> {
  const { appKey, limit } = query;
  const before = query.before === undefined ? sql`` : sql`and f.id < ${query.before}`;
  const { rows } = await sql<FeedbackRow>`select ${columns} from feedback f where f.app_key = ${appKey} ${before}
    order by f.id desc limit ${limit + 1}`.execute(db);
  return rows.map((row) => ({ ...row, id: Number(row.id) }));
}
