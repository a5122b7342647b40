// Issues as the API shows them: the row, with the member each is assigned to.
import { type Db, type IssueRow, issueAssignees, toIssue } from '@collector/db';

export async function withAssignees(db: Db, rows: readonly IssueRow[]) {
  const assignees = await issueAssignees(
    db,
    rows.map((row) => ({ appKey: row.app_key, fingerprint: row.fingerprint })),
  );
  return rows.map((row) => ({
    ...toIssue(row),
    assignee: assignees.get(`${row.app_key}\u0000${row.fingerprint}`) ?? null,
  }));
}
