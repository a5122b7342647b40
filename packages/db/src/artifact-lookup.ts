// Source maps for one event (issue 22), read from the artifact bundles the upload API stored: by debug ID first, else
// by the event's release, dist and the frame's URL. Two statements at most per event (one when debug IDs find every
// map), both on the indexes of migration 0022; a map's bytes are read apart (artifactContent), and only when the
// mapping worker lacks them.
import { sql } from 'kysely';
import type { Db } from './schema';

/** Where an app's artifacts are: its organization, and whether that has any bundle at all (most have none). */
export async function appArtifacts(db: Db, appKey: string): Promise<{ orgId: string; hasBundles: boolean } | null> {
  const row = await db
    .selectFrom('apps as a')
    .select((eb) => [
      'a.org_id',
      eb
        .exists(
          eb
            .selectFrom('artifact_bundles as b')
            .select(sql.lit(1).as('one'))
            .whereRef('b.org_id', '=', 'a.org_id')
            .where('b.state', '=', 'ok'),
        )
        .as('has_bundles'),
    ])
    .where('a.app_key', '=', appKey)
    .executeTakeFirst();
  if (!row?.org_id) return null;
  return { orgId: row.org_id, hasBundles: Boolean(row.has_bundles) };
}

/** A source map file: its bundle and its manifest URL name it (the key the mapping workers cache it by). */
export interface SourceMapRef {
  bundleId: string;
  url: string;
  size: number;
}

export interface ArtifactQuery {
  orgId: string;
  /** Debug IDs of the event's images that name one of its frames. */
  debugIds: readonly string[];
  release: string | undefined;
  dist: string | undefined;
  /** The manifest URLs the frames' files may have (domain artifactUrlsFor); none when no release. */
  fileUrls: readonly string[];
  /** The map URLs of a minified file (domain sourceMapUrlFor), from its URL and `sourcemap` header. */
  mapUrlsFor: (fileUrl: string, sourcemap: string | null) => string[];
}

export interface ArtifactMatches {
  /** The map of each debug ID found. */
  byDebugId: Map<string, SourceMapRef>;
  /** The map of each file URL found in the release's bundles. */
  byFileUrl: Map<string, SourceMapRef>;
}

const LOOKUP_ROWS = 500;

/**
 * Whether the organization holds a bundle of this release and dist: when not, no file of an event of it can be found
 * by URL (bundles uploaded with debug IDs alone, as sentry-cli does by default, have no release).
 */
export async function releaseHasBundles(
  db: Db,
  orgId: string,
  release: string,
  dist: string | undefined,
): Promise<boolean> {
  const row = await db
    .selectFrom('artifact_bundles as b')
    .select(sql.lit(1).as('one'))
    .where('b.org_id', '=', orgId)
    .where('b.state', '=', 'ok')
    .where('b.release', '=', release)
    .where((eb) => (dist === undefined ? eb('b.dist', 'is', null) : eb('b.dist', '=', dist)))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export async function findSourceMaps(db: Db, query: ArtifactQuery): Promise<ArtifactMatches> {
  const byDebugId = new Map<string, SourceMapRef>();
  const byFileUrl = new Map<string, SourceMapRef>();
  const [debugRows, fileRows] = await Promise.all([
    query.debugIds.length === 0
      ? []
      : db
          .selectFrom('artifact_files as f')
          .innerJoin('artifact_bundles as b', 'b.id', 'f.bundle_id')
          .select(['f.debug_id', 'f.bundle_id', 'f.url', 'f.size'])
          .where('f.org_id', '=', query.orgId)
          .where('f.debug_id', 'in', query.debugIds)
          .where('f.type', '=', 'source_map')
          .where('b.state', '=', 'ok')
          // The newest bundle wins when two hold the same debug ID (an upload repeated with another archive).
          .orderBy('b.created_at', 'desc')
          .limit(LOOKUP_ROWS)
          .execute(),
    query.release === undefined || query.fileUrls.length === 0
      ? []
      : db
          .selectFrom('artifact_files as f')
          .innerJoin('artifact_bundles as b', 'b.id', 'f.bundle_id')
          .select(['f.bundle_id', 'f.url', 'f.sourcemap'])
          .where('b.org_id', '=', query.orgId)
          .where('b.state', '=', 'ok')
          .where('b.release', '=', query.release)
          .where((eb) => (query.dist === undefined ? eb('b.dist', 'is', null) : eb('b.dist', '=', query.dist)))
          .where('f.url', 'in', query.fileUrls)
          .where('f.type', '!=', 'source_map')
          .orderBy('b.created_at', 'desc')
          .limit(LOOKUP_ROWS)
          .execute(),
  ]);
  for (const row of debugRows) {
    if (row.debug_id !== null && !byDebugId.has(row.debug_id))
      byDebugId.set(row.debug_id, { bundleId: row.bundle_id, url: row.url, size: row.size });
  }
  if (fileRows.length === 0) return { byDebugId, byFileUrl };
  // Each minified file's map is in its own bundle, under the URL its header names.
  const wanted = fileRows.flatMap((row) => query.mapUrlsFor(row.url, row.sourcemap).map((mapUrl) => ({ row, mapUrl })));
  if (wanted.length === 0) return { byDebugId, byFileUrl };
  const maps = await db
    .selectFrom('artifact_files')
    .select(['bundle_id', 'url', 'size'])
    .where('org_id', '=', query.orgId)
    .where('bundle_id', 'in', [...new Set(wanted.map(({ row }) => row.bundle_id))])
    .where('url', 'in', [...new Set(wanted.map(({ mapUrl }) => mapUrl))])
    .where('type', '=', 'source_map')
    .limit(LOOKUP_ROWS)
    .execute();
  const mapAt = new Map(maps.map((map) => [`${map.bundle_id}\n${map.url}`, map]));
  for (const { row, mapUrl } of wanted) {
    const map = mapAt.get(`${row.bundle_id}\n${mapUrl}`);
    if (map && !byFileUrl.has(row.url))
      byFileUrl.set(row.url, { bundleId: map.bundle_id, url: map.url, size: map.size });
  }
  return { byDebugId, byFileUrl };
}

/** A map's bytes, read only when a mapping worker does not hold it parsed already. */
export async function artifactContent(db: Db, ref: { bundleId: string; url: string }): Promise<Buffer | null> {
  const row = await db
    .selectFrom('artifact_files')
    .select('content')
    .where('bundle_id', '=', ref.bundleId)
    .where('url', '=', ref.url)
    .limit(1)
    .executeTakeFirst();
  return row?.content ?? null;
}

/** Marks bundles used (retention deletes bundles unused for RETENTION_DAYS); a bundle renewed since `before` is left. */
export async function renewBundles(db: Db, ids: readonly string[], now: number, before: number): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('artifact_bundles')
    .set({ last_used_at: now })
    .where('id', 'in', ids)
    .where('last_used_at', '<', before)
    .execute();
}
