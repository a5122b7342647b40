// Issues as the API shows them: the row, with the member each is assigned to and whether any of its events was
// unhandled (one query each for the whole page).
import { type Db, type IssueKey, type IssueRow, issueAssignees, toIssue, unhandledIssues } from '@collector/db';

/** How to show the issues of these keys: read for all of them at once, before or while their rows are read. */
export async function issuePresenter(db: Db, keys: readonly IssueKey[]) {
  const [assignees, unhandled] = await Promise.all([issueAssignees(db, keys), unhandledIssues(db, keys)]);
  return (row: IssueRow) => {
    const key = `${row.app_key}\u0000${row.fingerprint}`;
    return { ...toIssue(row), assignee: assignees.get(key) ?? null, unhandled: unhandled.has(key) };
  };
}

export async function withAssignees(db: Db, rows: readonly IssueRow[]) {
  const present = await issuePresenter(
    db,
    rows.map((row) => ({ appKey: row.app_key, fingerprint: row.fingerprint })),
  );
  return rows.map(present);
}
