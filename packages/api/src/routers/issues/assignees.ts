// Issues as the API shows them: the row, with the member each is assigned to and whether any of its events was
// unhandled (one query each for the whole page).
import { type Db, type IssueRow, issueAssignees, toIssue, unhandledIssues } from '@collector/db';

export async function withAssignees(db: Db, rows: readonly IssueRow[]) {
  const keys = rows.map((row) => ({ appKey: row.app_key, fingerprint: row.fingerprint }));
  const [assignees, unhandled] = await Promise.all([issueAssignees(db, keys), unhandledIssues(db, keys)]);
  return rows.map((row) => {
    const key = `${row.app_key}\u0000${row.fingerprint}`;
    return { ...toIssue(row), assignee: assignees.get(key) ?? null, unhandled: unhandled.has(key) };
  });
}
