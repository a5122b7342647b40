// User feedback: stored as the Sentry endpoints receive it, listed per issue and per app (migration 0021).
import { DAY, type FeedbackInput } from '@collector/domain';
import { type Kysely, sql } from 'kysely';
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
 * The issues of events already stored, by event id: event_ids tells the day of each one's timestamp, so only that
 * day's partition of events is read (events has no index by event id; the write path would pay for one on every
 * event). The day goes in as a value, not a join: joined, the planner reads every day's partition. An event not
 * stored (yet, or any more) has none.
 */
async function issuesOfStoredEvents(
  db: Kysely<Database>,
  appKey: string,
  eventIds: readonly string[],
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  if (eventIds.length === 0) return found;
  const days = await db
    .selectFrom('event_ids')
    .select(['event_id', 'day'])
    .where('app_key', '=', appKey)
    .where('event_id', 'in', [...new Set(eventIds)])
    .execute();
  for (const { event_id, day } of days) {
    const event = await db
      .selectFrom('events')
      .select('fingerprint')
      .where('app_key', '=', appKey)
      .where('event_id', '=', event_id)
      .where('timestamp', '>=', day * DAY)
      .where('timestamp', '<', (day + 1) * DAY)
      .limit(1)
      .executeTakeFirst();
    if (event) found.set(event_id, event.fingerprint);
  }
  return found;
}

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
  const issues = await issuesOfStoredEvents(
    db,
    appKey,
    items.flatMap((item) => (item.eventId === null ? [] : [item.eventId])),
  );
  const rows = items.map((item) => ({
    kind: item.kind,
    source_id: item.sourceId,
    event_id: item.eventId,
    fingerprint: item.eventId === null ? null : (issues.get(item.eventId) ?? null),
    name: item.name,
    email: item.email,
    message: item.message,
    url: item.url,
  }));
  await sql`insert into feedback (app_key, kind, source_id, event_id, fingerprint, name, email, message, url, received_at)
    select ${appKey}, r.kind, r.source_id, r.event_id, r.fingerprint, r.name, r.email, r.message, r.url, ${receivedAt}::int8
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      as r(kind text, source_id text, event_id text, fingerprint text, name text, email text, message text, url text)
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
