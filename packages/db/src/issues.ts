import { type Issue, type IssueCursor, issueId, type StoredEvent } from '@collector/domain';
import { type Kysely, sql } from 'kysely';
import type { Database, IssueRow } from './schema';

export function toIssue(row: IssueRow): Issue {
  return {
    id: issueId(row.app_key, row.fingerprint),
    appKey: row.app_key,
    fingerprint: row.fingerprint,
    message: row.message,
    errorType: row.error_type,
    eventCount: row.event_count,
    userCount: row.user_count,
    firstSeenAt: row.first_seen_at,
    lastSeenAt: row.last_seen_at,
  };
}

export interface IssueListQuery {
  userId: string;
  appKey?: string | undefined;
  after?: IssueCursor | undefined;
  limit: number;
}

/**
 * The user's issues, newest lastSeenAt first (ties: appKey, then fingerprint, descending); reads one row more than asked
 * to tell whether a next page exists. Each app's issues come in that order from issues_app_last_seen, so the page is
 * merged from at most limit + 1 rows of each app, starting at the cursor: the cost does not grow with the issues
 * skipped. The cursor (lastSeenAt, appKey, fingerprint) becomes, for each app, a bound on (last_seen_at, fingerprint)
 * that the index can seek to: an app after the cursor's (in the descending order) may take last_seen_at = lastSeenAt,
 * one before it only older, and the cursor's own app continues after its fingerprint ('' sorts before any fingerprint).
 */
export async function listIssues(db: Kysely<Database>, query: IssueListQuery): Promise<{ rows: IssueRow[]; hasMore: boolean }> {
  const take = query.limit + 1;
  const after = query.after;
  const bound = after
    ? sql`and (i.last_seen_at, i.fingerprint) < (
        case when a.app_key < ${after.appKey} then ${after.lastSeenAt}::int8 + 1 else ${after.lastSeenAt}::int8 end,
        case when a.app_key = ${after.appKey} then ${after.fingerprint} else '' end)`
    : sql``;
  const one = query.appKey === undefined ? sql`` : sql`and a.app_key = ${query.appKey}`;
  const { rows } = await sql<IssueRow>`
    select i.* from apps a
    cross join lateral (
      select * from issues i where i.app_key = a.app_key ${bound}
      order by i.last_seen_at desc, i.fingerprint desc limit ${take}
    ) i
    where a.user_id = ${query.userId} ${one}
    order by i.last_seen_at desc, i.app_key desc, i.fingerprint desc
    limit ${take}`.execute(db);
  return { rows: rows.slice(0, query.limit), hasMore: rows.length > query.limit };
}

export async function findIssue(db: Kysely<Database>, query: { userId: string; appKey: string; fingerprint: string }): Promise<IssueRow | undefined> {
  return db
    .selectFrom('issues')
    .innerJoin('apps', 'apps.app_key', 'issues.app_key')
    .selectAll('issues')
    .where('apps.user_id', '=', query.userId)
    .where('issues.app_key', '=', query.appKey)
    .where('issues.fingerprint', '=', query.fingerprint)
    .executeTakeFirst();
}

/** An issue's events, newest first, each as it was stored plus the time it was received. */
export async function listIssueEvents(
  db: Kysely<Database>,
  query: { appKey: string; fingerprint: string; limit: number },
): Promise<Array<StoredEvent & { receivedAt: number }>> {
  const rows = await db
    .selectFrom('events')
    .select(['payload', 'received_at'])
    .where('app_key', '=', query.appKey)
    .where('fingerprint', '=', query.fingerprint)
    .orderBy('timestamp', 'desc')
    .orderBy('event_id', 'desc')
    .limit(query.limit)
    .execute();
  return rows.map((row) => ({ ...row.payload, receivedAt: row.received_at }));
}
