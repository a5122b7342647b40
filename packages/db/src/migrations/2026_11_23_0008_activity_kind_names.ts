// Activity kinds in the product's words: 'user' and 'issue' instead of 'u' and 'i', and overview_window() recreated
// from its live source (windowed-counts.ts) with names to match: its parameters and result columns are renamed, which
// `create or replace` cannot do, hence the drop. Frozen once landed (the function's text is not: see windowed-counts.ts).
import { type Kysely, sql } from 'kysely';
import { createOverviewWindow } from '../windowed-counts';
import { overviewWindowAsOf0007 } from './2026_11_21_0007_activity_by_hour';

/** Rewrites every activity row's kind once (on a large database, longer than a request may take), and the function. */
async function renameKinds(db: Kysely<any>, names: Record<string, string>, createFunction: { execute(db: Kysely<any>): Promise<unknown> }) {
  await sql`set local statement_timeout = 0`.execute(db);
  const [[fromUser, toUser], [fromIssue, toIssue]] = Object.entries(names) as [[string, string], [string, string]];
  for (const table of ['activity_hours', 'activity_by_prev_day', 'activity_by_hour']) {
    await sql`update ${sql.table(table)} set kind = case kind when ${fromUser} then ${toUser} else ${toIssue} end
      where kind in (${fromUser}, ${fromIssue})`.execute(db);
  }
  await sql`drop function overview_window(text[], text, int8, int8)`.execute(db);
  await createFunction.execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  await renameKinds(db, { u: 'user', i: 'issue' }, createOverviewWindow);
}

export async function down(db: Kysely<any>): Promise<void> {
  // The function as migration 0007 left it, from its frozen copy there (it reads the kinds 'u' and 'i').
  await renameKinds(db, { user: 'u', issue: 'i' }, overviewWindowAsOf0007);
}
