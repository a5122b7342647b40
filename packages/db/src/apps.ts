import { type App, type AppType, type OrgRole, sentryDsn, uniqueSlug } from '@collector/domain';
import type { Insertable, Kysely } from 'kysely';
import { prepared } from './connection';
import type { AppRow, AppsTable, Database } from './schema';

/** An app's row with its organization's slug. */
export type AppWithOrgRow = AppRow & { org_slug: string | null };

/** `publicUrl`: the collector's address as the world reaches it, the base of the app's DSN. */
export function toApp(row: AppWithOrgRow, publicUrl: string): App {
  return {
    appKey: row.app_key,
    name: row.name,
    type: row.type as AppType,
    createdAt: row.created_at,
    dsn: sentryDsn(publicUrl, row.public_key, row.project_id),
    // Both are set for every app the API made or migration 0018 moved; the fallbacks cover hand-made rows.
    slug: row.slug ?? `app-${row.project_id}`,
    org: row.org_slug ?? '',
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

/** `base`, or the first of `base-2`, `base-3`... that no app of the organization has. */
export async function freeAppSlug(db: Kysely<Database>, orgId: string, base: string): Promise<string> {
  const rows = await db
    .selectFrom('apps')
    .select('slug')
    .where('org_id', '=', orgId)
    // Slugs hold no LIKE wildcards (% and _).
    .where('slug', 'like', `${base}%`)
    .execute();
  const taken = new Set(rows.map((row) => row.slug));
  return uniqueSlug(base, (slug) => taken.has(slug));
}

// Every request about one app is authorized by it: prepared once per connection. No user: '' matches no membership.
const appAccess = prepared((db, appKey: string, userId: string) =>
  db
    .selectFrom('apps as a')
    .leftJoin('memberships as m', (join) => join.onRef('m.org_id', '=', 'a.org_id').on('m.user_id', '=', userId))
    .select(['a.org_id', 'm.role'])
    .where('a.app_key', '=', appKey),
);

/** The organization an app is in, with the user's role there (undefined: not a member); undefined for no such app. */
export async function findAppAccess(
  db: Kysely<Database>,
  appKey: string,
  userId: string | null,
): Promise<{ orgId: string | null; role: OrgRole | undefined } | undefined> {
  const row = (await db.executeQuery(appAccess(db, appKey, userId ?? ''))).rows[0];
  return row && { orgId: row.org_id, role: (row.role ?? undefined) as OrgRole | undefined };
}

/** The app a Sentry DSN's project id names, with the key that must come with it. */
export async function findAppByProjectId(
  db: Kysely<Database>,
  projectId: number,
): Promise<Pick<AppRow, 'app_key' | 'public_key'> | undefined> {
  return db.selectFrom('apps').select(['app_key', 'public_key']).where('project_id', '=', projectId).executeTakeFirst();
}

/** The apps of these organizations, oldest first. */
export async function listApps(db: Kysely<Database>, orgIds: readonly string[]): Promise<AppWithOrgRow[]> {
  if (orgIds.length === 0) return [];
  return db
    .selectFrom('apps')
    .innerJoin('organizations', 'organizations.id', 'apps.org_id')
    .selectAll('apps')
    .select('organizations.slug as org_slug')
    .where('apps.org_id', 'in', orgIds)
    .orderBy('apps.created_at')
    .orderBy('apps.app_key')
    .execute();
}

/** An app of the organization by its slug or, as Sentry's tools may send it, its project id. */
export async function findOrgApp(
  db: Kysely<Database>,
  orgId: string,
  slugOrProjectId: string,
): Promise<AppRow | undefined> {
  let query = db.selectFrom('apps').selectAll().where('org_id', '=', orgId);
  query = /^\d{1,15}$/.test(slugOrProjectId)
    ? query.where('project_id', '=', Number(slugOrProjectId))
    : query.where('slug', '=', slugOrProjectId);
  return query.executeTakeFirst();
}

export async function appExists(db: Kysely<Database>, appKey: string): Promise<boolean> {
  const row = await db.selectFrom('apps').select('app_key').where('app_key', '=', appKey).executeTakeFirst();
  return row !== undefined;
}
