// What people do to an issue: who it is assigned to, and its history (status changes, assignments, comments). Apart
// from the issues table, which the write path updates for every event.
import { type Kysely, sql } from 'kysely';
import { PREPARED } from './connection';
import { type IssueKey, issueKeyRows } from './issue-keys';
import { appKeyed } from './keys';
import type { Database } from './schema';

type AssigneeRow = { app_key: string; fingerprint: string; id: string; email: string };

/** The assignees of the issues of keys `k` (issueKeyRows, in a WITH): a query of its own, or part of the list's. */
export const assigneesOfKeys = sql<AssigneeRow>`
  select s.app_key, s.fingerprint, u.id, u.email from issue_assignees s join k using (app_key, fingerprint)
  join users u on u.id = s.user_id`;

/** assigneesOfKeys' rows by `<appKey>\u0000<fingerprint>`. */
export const assigneesByIssue = (rows: readonly AssigneeRow[]): Map<string, { id: string; email: string }> =>
  new Map(rows.map((row) => [appKeyed(row.app_key, row.fingerprint), { id: row.id, email: row.email }]));

/** The assignee of each issue among `keys` that has one, by `<appKey>\u0000<fingerprint>`. */
export async function issueAssignees(
  db: Kysely<Database>,
  keys: readonly IssueKey[],
): Promise<Map<string, { id: string; email: string }>> {
  if (keys.length === 0) return new Map();
  const { rows } = await sql<AssigneeRow>`${sql.raw(PREPARED)}
    with k as (${issueKeyRows(keys)}) ${assigneesOfKeys}`.execute(db);
  return assigneesByIssue(rows);
}

export async function setIssueAssignee(
  db: Kysely<Database>,
  change: IssueKey & { userId: string | null; now: number },
): Promise<void> {
  if (change.userId === null) {
    await db
      .deleteFrom('issue_assignees')
      .where('app_key', '=', change.appKey)
      .where('fingerprint', '=', change.fingerprint)
      .execute();
    return;
  }
  await db
    .insertInto('issue_assignees')
    .values({
      app_key: change.appKey,
      fingerprint: change.fingerprint,
      user_id: change.userId,
      assigned_at: change.now,
    })
    .onConflict((oc) =>
      oc.columns(['app_key', 'fingerprint']).doUpdateSet({ user_id: change.userId ?? '', assigned_at: change.now }),
    )
    .execute();
}

export interface IssueHistoryRow {
  id: number;
  type: string;
  actor_id: string | null;
  actor_email: string | null;
  data: Record<string, unknown>;
  at: number;
}

type HistoryEntry = IssueKey & {
  type: 'status' | 'assignee' | 'comment';
  actorId: string | null;
  data: object;
  at: number;
};

/** Records entries of issues' history; returns their ids, in order. */
export async function insertIssueHistory(db: Kysely<Database>, entries: readonly HistoryEntry[]): Promise<number[]> {
  if (entries.length === 0) return [];
  const rows = await db
    .insertInto('issue_history')
    .values(
      entries.map((entry) => ({
        app_key: entry.appKey,
        fingerprint: entry.fingerprint,
        type: entry.type,
        actor_id: entry.actorId,
        data: JSON.stringify(entry.data),
        at: entry.at,
      })),
    )
    .returning('id')
    .execute();
  return rows.map((row) => Number(row.id));
}

/** The issue's history, newest first, before the entry `before` when given; one row more than `limit`. */
export async function listIssueHistory(
  db: Kysely<Database>,
  query: IssueKey & { before?: number | undefined; limit: number },
): Promise<IssueHistoryRow[]> {
  let select = db
    .selectFrom('issue_history as h')
    .leftJoin('users as u', 'u.id', 'h.actor_id')
    .select(['h.id', 'h.type', 'h.actor_id', 'u.email as actor_email', 'h.data', 'h.at'])
    .where('h.app_key', '=', query.appKey)
    .where('h.fingerprint', '=', query.fingerprint);
  if (query.before !== undefined) select = select.where('h.id', '<', query.before);
  const rows = await select
    .orderBy('h.id', 'desc')
    .limit(query.limit + 1)
    .execute();
  return rows.map((row) => ({ ...row, id: Number(row.id) }));
}
