// Activity kinds in the product's words: 'user' and 'issue' instead of 'u' and 'i', and overview_window() recreated
// from its live source (windowed-counts.ts) with names to match: its parameters and result columns are renamed, which
// `create or replace` cannot do, hence the drop. Frozen once landed (the function's text is not: see windowed-counts.ts).
import { type Kysely, sql } from 'kysely';
import { createOverviewWindow } from '../windowed-counts';
import { overviewWindowAsOf0007 } from './2026_11_21_0007_activity_by_hour';

const tables = ['activity_hours', 'activity_by_prev_day', 'activity_by_hour'];

export async function up(db: Kysely<any>): Promise<void> {
  // Rewrites every activity row once; on a large database that takes longer than a request may.
  await sql`set local statement_timeout = 0`.execute(db);
  for (const table of tables) {
    await sql`update ${sql.table(table)} set kind = case kind when 'u' then 'user' when 'i' then 'issue' else kind end where kind in ('u', 'i')`.execute(db);
  }
  await sql`drop function overview_window(text[], text, int8, int8)`.execute(db);
  await createOverviewWindow.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`set local statement_timeout = 0`.execute(db);
  for (const table of tables) {
    await sql`update ${sql.table(table)} set kind = case kind when 'user' then 'u' when 'issue' then 'i' else kind end where kind in ('user', 'issue')`.execute(db);
  }
  // The function as migration 0007 left it, from its frozen copy there (it reads the kinds 'u' and 'i').
  await sql`drop function overview_window(text[], text, int8, int8)`.execute(db);
  await overviewWindowAsOf0007.execute(db);
}
