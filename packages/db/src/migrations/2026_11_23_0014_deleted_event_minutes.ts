// Events deleted by retention or the cap per issue, counted per app and minute of their timestamp, by the statement (or
// transaction) that deletes them: overview_window() adds those of the minutes inside its two partial edge hours, which
// it otherwise counts from the stored events alone, so a window whose edge falls in an hour whose events were deleted
// still counts every event (on whole minutes). The write path never touches this table. overview_window() is
// recreated from its live source (windowed-counts.ts), which now reads it.
// Events deleted before this migration were not counted: windows whose edges fall in their hours still miss them.
// Frozen once landed (the function's text is not: see windowed-counts.ts).
import { type Kysely, sql } from 'kysely';
import { createOverviewWindow } from '../windowed-counts';
import { overviewWindowAsOf0008 } from './2026_11_23_0008_activity_kind_names';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('deleted_event_minutes')
    .addColumn('app_key', 'text', (col) => col.notNull().references('apps.app_key').onDelete('cascade'))
    // UTC minute of the events' timestamps: ms / 60,000.
    .addColumn('minute', 'int4', (col) => col.notNull())
    .addColumn('events', 'int8', (col) => col.notNull())
    .addColumn('errors', 'int8', (col) => col.notNull())
    .addColumn('failed_requests', 'int8', (col) => col.notNull())
    .addPrimaryKeyConstraint('deleted_event_minutes_pkey', ['app_key', 'minute'])
    .execute();
  await createOverviewWindow.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await overviewWindowAsOf0008.execute(db);
  await db.schema.dropTable('deleted_event_minutes').execute();
}
