// Issues as the API shows them: the row, with the member each is assigned to and whether any of its events was
// unhandled (one query each for the whole page, or the list's page read).
import { appKeyed, type Db, type IssueRow, issueAssignees, toIssue, unhandledIssues } from '@collector/db';

/** Shows an issue with its assignee and unhandled flag, from those read for its page (keyed `appKey\u0000fingerprint`). */
export function presentIssue(
  assignees: ReadonlyMap<string, { id: string; email: string }>,
  unhandled: ReadonlySet<string>,
) {
  return (row: IssueRow) => {
    const key = appKeyed(row.app_key, row.fingerprint);
    // Added to toIssue's object rather than copied from it: the list shows 50 a call.
    return Object.assign(toIssue(row), { assignee: assignees.get(key) ?? null, unhandled: unhandled.has(key) });
  };
}

export async function withAssignees(db: Db, rows: readonly IssueRow[]) {
  const keys = rows.map((row) => ({ appKey: row.app_key, fingerprint: row.fingerprint }));
  const [assignees, unhandled] = await Promise.all([issueAssignees(db, keys), unhandledIssues(db, keys)]);
  return rows.map(presentIssue(assignees, unhandled));
}
