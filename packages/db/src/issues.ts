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

/** The user's issues, newest lastSeenAt first; reads one row more than asked to tell whether a next page exists. */
export async function listIssues(db: Kysely<Database>, query: IssueListQuery): Promise<{ rows: IssueRow[]; hasMore: boolean }> {
  let select = db
    .selectFrom('issues')
    .innerJoin('apps', 'apps.app_key', 'issues.app_key')
    .selectAll('issues')
    .where('apps.user_id', '=', query.userId);
  if (query.appKey !== undefined) select = select.where('issues.app_key', '=', query.appKey);
  if (query.after) {
    const { lastSeenAt, appKey, fingerprint } = query.after;
    select = select.where(sql<boolean>`(issues.last_seen_at, issues.app_key, issues.fingerprint) < (${lastSeenAt}, ${appKey}, ${fingerprint})`);
  }
  const rows = await select
    .orderBy('issues.last_seen_at', 'desc')
    .orderBy('issues.app_key', 'desc')
    .orderBy('issues.fingerprint', 'desc')
    .limit(query.limit + 1)
    .execute();
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
