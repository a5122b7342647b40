import type { App, AppType } from '@collector/domain';
import type { Kysely } from 'kysely';
import type { AppRow, Database } from './schema';

export function toApp(row: AppRow): App {
  return { appKey: row.app_key, name: row.name, type: row.type as AppType, createdAt: row.created_at };
}

/** Creates the app with its zeroed totals row, so ingestion only ever updates. */
export async function insertApp(db: Kysely<Database>, app: AppRow): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('apps').values(app).execute();
    await trx.insertInto('app_totals').values({ app_key: app.app_key }).execute();
  });
}

/** The caller's apps, oldest first. */
export async function listApps(db: Kysely<Database>, userId: string): Promise<AppRow[]> {
  return db.selectFrom('apps').selectAll().where('user_id', '=', userId).orderBy('created_at').orderBy('app_key').execute();
}

/** Whether the app exists and belongs to the user; another user's app is reported exactly as a missing one. */
export async function isAppOwnedBy(db: Kysely<Database>, appKey: string, userId: string): Promise<boolean> {
  const row = await db.selectFrom('apps').select('app_key').where('app_key', '=', appKey).where('user_id', '=', userId).executeTakeFirst();
  return row !== undefined;
}

export async function appExists(db: Kysely<Database>, appKey: string): Promise<boolean> {
  const row = await db.selectFrom('apps').select('app_key').where('app_key', '=', appKey).executeTakeFirst();
  return row !== undefined;
}
