import { type App, type AppType, sentryDsn } from '@collector/domain';
import type { Insertable, Kysely } from 'kysely';
import type { AppRow, AppsTable, Database } from './schema';

/** `publicUrl`: the collector's address as the world reaches it, the base of the app's DSN. */
export function toApp(row: AppRow, publicUrl: string): App {
  return {
    appKey: row.app_key,
    name: row.name,
    type: row.type as AppType,
    createdAt: row.created_at,
    dsn: sentryDsn(publicUrl, row.public_key, row.project_id),
  };
}

/** Creates the app with its zeroed totals row (an app with no events shows zeros). Returns the row with its project id. */
export async function insertApp(db: Kysely<Database>, app: Insertable<AppsTable>): Promise<AppRow> {
  return db.transaction().execute(async (trx) => {
    const row = await trx.insertInto('apps').values(app).returningAll().executeTakeFirstOrThrow();
    await trx.insertInto('app_totals_folded').values({ app_key: app.app_key }).execute();
    return row;
  });
}

/** The app a Sentry DSN's project id names, with the key that must come with it. */
export async function findAppByProjectId(
  db: Kysely<Database>,
  projectId: number,
): Promise<Pick<AppRow, 'app_key' | 'public_key'> | undefined> {
  return db.selectFrom('apps').select(['app_key', 'public_key']).where('project_id', '=', projectId).executeTakeFirst();
}

/** The caller's apps, oldest first. */
export async function listApps(db: Kysely<Database>, userId: string): Promise<AppRow[]> {
  return db
    .selectFrom('apps')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('app_key')
    .execute();
}

/** Whether the app exists and belongs to the user; another user's app is reported exactly as a missing one. */
export async function isAppOwnedBy(db: Kysely<Database>, appKey: string, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('apps')
    .select('app_key')
    .where('app_key', '=', appKey)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row !== undefined;
}

export async function appExists(db: Kysely<Database>, appKey: string): Promise<boolean> {
  const row = await db.selectFrom('apps').select('app_key').where('app_key', '=', appKey).executeTakeFirst();
  return row !== undefined;
}
