// Releases and deploys (migration 0022): what sentry-cli and the bundler plugins create, and what an app's events say
// about each release. Releases are the organization's, as in Sentry; release_apps says which apps a release is of.
import { type Kysely, type Selectable, sql } from 'kysely';
import type { Database, DeploysTable, ReleasesTable } from './schema';

export type ReleaseRow = Selectable<ReleasesTable>;
export type DeployRow = Selectable<DeploysTable>;

/**
 * Creates a release of these apps, or adds the apps to the release of that version when it exists (Sentry's 208: the
 * existing release keeps its dates, ref and url). One transaction, so a concurrent create of the same version waits
 * and then adds its apps.
 */
export async function createRelease(
  db: Kysely<Database>,
  release: ReleaseRow,
  appKeys: readonly string[],
): Promise<{ created: boolean; release: ReleaseRow }> {
  return db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('releases')
      .values(release)
      .onConflict((conflict) => conflict.columns(['org_id', 'version']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (appKeys.length > 0)
      await trx
        .insertInto('release_apps')
        .values(appKeys.map((app_key) => ({ org_id: release.org_id, version: release.version, app_key })))
        .onConflict((conflict) => conflict.doNothing())
        .execute();
    if (inserted) return { created: true, release: inserted };
    const existing = await findRelease(trx, release.org_id, release.version);
    return { created: false, release: existing as ReleaseRow };
  });
}

export async function findRelease(
  db: Kysely<Database>,
  orgId: string,
  version: string,
): Promise<ReleaseRow | undefined> {
  return db
    .selectFrom('releases')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('version', '=', version)
    .executeTakeFirst();
}

/**
 * The organization's releases, newest first (by creation, then version): all, or those of one of `appKeys`, whose
 * version contains `query` (case-insensitive, as Sentry's `query`). `offset` pages.
 */
export async function listReleases(
  db: Kysely<Database>,
  orgId: string,
  options: { appKeys?: readonly string[]; query?: string; limit: number; offset?: number },
): Promise<ReleaseRow[]> {
  let query = db.selectFrom('releases as r').selectAll('r').where('r.org_id', '=', orgId);
  const appKeys = options.appKeys;
  if (appKeys !== undefined) {
    if (appKeys.length === 0) return [];
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('release_apps as ra')
          .select('ra.app_key')
          .whereRef('ra.org_id', '=', 'r.org_id')
          .whereRef('ra.version', '=', 'r.version')
          .where('ra.app_key', 'in', appKeys),
      ),
    );
  }
  if (options.query) query = query.where(sql<boolean>`strpos(lower(r.version), lower(${options.query})) > 0`);
  return query
    .orderBy('r.created_at', 'desc')
    .orderBy('r.version', 'desc')
    .limit(options.limit)
    .offset(options.offset ?? 0)
    .execute();
}

/** The apps of each release, by version. */
export async function releaseAppKeys(
  db: Kysely<Database>,
  orgId: string,
  versions: readonly string[],
): Promise<Map<string, string[]>> {
  const apps = new Map(versions.map((version) => [version, [] as string[]]));
  if (versions.length === 0) return apps;
  const rows = await db
    .selectFrom('release_apps')
    .select(['version', 'app_key'])
    .where('org_id', '=', orgId)
    .where('version', 'in', versions)
    .orderBy('app_key')
    .execute();
  for (const row of rows) apps.get(row.version)?.push(row.app_key);
  return apps;
}

/** Sets what finalizing or editing a release changes; undefined when there is no such release. */
export async function updateRelease(
  db: Kysely<Database>,
  orgId: string,
  version: string,
  changes: Partial<Pick<ReleaseRow, 'ref' | 'url' | 'date_released' | 'date_started'>>,
): Promise<ReleaseRow | undefined> {
  if (Object.keys(changes).length === 0) return findRelease(db, orgId, version);
  return db
    .updateTable('releases')
    .set(changes)
    .where('org_id', '=', orgId)
    .where('version', '=', version)
    .returningAll()
    .executeTakeFirst();
}

/** Deletes a release with its apps and deploys (foreign keys); false when there was none. */
export async function deleteRelease(db: Kysely<Database>, orgId: string, version: string): Promise<boolean> {
  const result = await db
    .deleteFrom('releases')
    .where('org_id', '=', orgId)
    .where('version', '=', version)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function insertDeploy(db: Kysely<Database>, deploy: DeployRow): Promise<DeployRow> {
  return db.insertInto('deploys').values(deploy).returningAll().executeTakeFirstOrThrow();
}

/** A release's deploys, newest first. */
export async function listDeploys(
  db: Kysely<Database>,
  orgId: string,
  version: string,
  limit: number,
): Promise<DeployRow[]> {
  return db
    .selectFrom('deploys')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('version', '=', version)
    .orderBy('date_finished', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** Each release's deploy count and its latest `latest` deploys (one index range per release, deploys_release). */
export async function deploySummaries(
  db: Kysely<Database>,
  orgId: string,
  versions: readonly string[],
  latest: number,
): Promise<Map<string, { count: number; latest: DeployRow[] }>> {
  const summaries = new Map(versions.map((version) => [version, { count: 0, latest: [] as DeployRow[] }]));
  if (versions.length === 0) return summaries;
  const rows = await db
    .selectFrom('deploys')
    .selectAll()
    .select(sql<number>`(count(*) over (partition by version))::int4`.as('count'))
    .select(sql<number>`row_number() over (partition by version order by date_finished desc, id desc)`.as('rank'))
    .where('org_id', '=', orgId)
    .where('version', 'in', versions)
    .execute();
  for (const { count, rank, ...deploy } of rows) {
    const summary = summaries.get(deploy.version);
    if (!summary) continue;
    summary.count = count;
    if (Number(rank) <= latest) summary.latest.push(deploy);
  }
  for (const summary of summaries.values()) summary.latest.sort((a, b) => b.date_finished - a.date_finished);
  return summaries;
}

/** What an app's events say about one release (app_releases, migration 0027). */
export interface ReleaseActivity {
  /** Events that named it. */
  events: number;
  /** Its first and last event: of every event received, as Sentry keeps them (retention moves neither). */
  firstEvent: number | null;
  lastEvent: number | null;
  /** Issues whose first event named it. */
  newIssues: number;
}

/**
 * What the events of `appKeys` say about these releases: the app_releases counter, an index probe per app and
 * release. Reading them from the kept events took 1.3-2.0 s for an app of 276,600 events (docs/performance.md).
 */
export async function releaseActivity(
  db: Kysely<Database>,
  appKeys: readonly string[],
  versions: readonly string[],
): Promise<Map<string, ReleaseActivity>> {
  const activity = new Map<string, ReleaseActivity>(
    versions.map((version) => [version, { events: 0, firstEvent: null, lastEvent: null, newIssues: 0 }]),
  );
  if (appKeys.length === 0 || versions.length === 0) return activity;
  const { rows } = await sql<{
    release: string;
    events: number;
    new_issues: number;
    first_seen: number | null;
    last_seen: number | null;
  }>`select release, sum(events)::int8 as events, sum(new_issues)::int8 as new_issues, min(first_seen) as first_seen,
      max(last_seen) as last_seen
    from app_releases where app_key = any(${sql.val([...appKeys])}::text[]) and release = any(${sql.val([...versions])}::text[])
    group by release`.execute(db);
  for (const row of rows)
    activity.set(row.release, {
      events: row.events,
      firstEvent: row.first_seen,
      lastEvent: row.last_seen,
      newIssues: row.new_issues,
    });
  return activity;
}

/**
 * The versions an app's releases page lists, newest first: its releases, and the versions its events named (Sentry
 * makes a release of those). Newest: the release's creation, or for a version seen only in events its first event (an
 * ordering only; the page's figures come from releaseActivity).
 */
export async function appReleaseVersions(
  db: Kysely<Database>,
  orgId: string,
  appKey: string,
  limit: number,
): Promise<Array<{ version: string; release: ReleaseRow | null; seenAt: number }>> {
  const rows = await sql<{
    version: string;
    seen_at: string;
    created_at: string | null;
  }>`with seen as (select release, first_seen from app_releases where app_key = ${appKey}),
    versions as (
      select version from release_apps where org_id = ${orgId} and app_key = ${appKey}
      union
      select release from seen
    )
    select v.version, r.created_at, coalesce(r.created_at, s.first_seen) as seen_at
    from versions v
    left join releases r on r.org_id = ${orgId} and r.version = v.version
    left join seen s on s.release = v.version
    order by seen_at desc nulls last, v.version desc
    limit ${limit}`.execute(db);
  const found = await db
    .selectFrom('releases')
    .selectAll()
    .where('org_id', '=', orgId)
    .where(
      'version',
      'in',
      rows.rows
        .filter((row) => row.created_at !== null)
        .map((row) => row.version)
        .concat(['']),
    )
    .execute();
  const byVersion = new Map(found.map((row) => [row.version, row]));
  return rows.rows.map((row) => ({
    version: row.version,
    release: byVersion.get(row.version) ?? null,
    seenAt: Number(row.seen_at ?? 0),
  }));
}

/** The artifact files of each release's assembled bundles, for the "no source maps for this release" note. */
export async function releaseArtifactCounts(
  db: Kysely<Database>,
  orgId: string,
  versions: readonly string[],
): Promise<Map<string, number>> {
  const counts = new Map(versions.map((version) => [version, 0]));
  if (versions.length === 0) return counts;
  const rows = await db
    .selectFrom('artifact_bundles')
    .select(['release', sql<string>`sum(file_count)`.as('files')])
    .where('org_id', '=', orgId)
    .where('state', '=', 'ok')
    .where('release', 'in', versions)
    .groupBy('release')
    .execute();
  for (const row of rows) if (row.release !== null) counts.set(row.release, Number(row.files));
  return counts;
}
