// Source-map uploads (issue 22): chunks as sentry-cli uploads them, owned by the organization that sent them, and the
// artifact bundles assembled from them with their manifest's files. The assembling itself is packages/api's
// (sentry-artifacts.ts); these are its statements.
import { DAY } from '@collector/domain';
import type { Kysely } from 'kysely';
import type { ArtifactBundlesTable, Database } from './schema';

export type ArtifactBundleState = ArtifactBundlesTable['state'];

/** Stores chunks (uncompressed); one already held by the organization is kept as it is (its bytes are the same). */
export async function storeUploadChunk(
  db: Kysely<Database>,
  orgId: string,
  checksum: string,
  data: Buffer,
  now: number,
): Promise<void> {
  await db
    .insertInto('upload_chunks')
    .values({ org_id: orgId, checksum, data, created_at: now })
    // Sent again: fresh again, so the daily clean-up does not take it from under the assembly it was sent for.
    .onConflict((conflict) => conflict.columns(['org_id', 'checksum']).doUpdateSet({ created_at: now }))
    .execute();
}

/** Which of `checksums` the organization holds (never another organization's). */
export async function heldUploadChunks(db: Kysely<Database>, orgId: string, checksums: string[]): Promise<Set<string>> {
  if (checksums.length === 0) return new Set();
  const rows = await db
    .selectFrom('upload_chunks')
    .select('checksum')
    .where('org_id', '=', orgId)
    .where('checksum', 'in', checksums)
    .execute();
  return new Set(rows.map((row) => row.checksum));
}

/** One chunk's bytes, or undefined when it is gone (the daily clean-up of chunks). */
export async function readUploadChunk(
  db: Kysely<Database>,
  orgId: string,
  checksum: string,
): Promise<Buffer | undefined> {
  const row = await db
    .selectFrom('upload_chunks')
    .select('data')
    .where('org_id', '=', orgId)
    .where('checksum', '=', checksum)
    .executeTakeFirst();
  return row?.data;
}

export interface ArtifactBundleStatus {
  id: string;
  state: ArtifactBundleState;
  detail: string | null;
  created_at: number;
}

export async function findArtifactBundle(
  db: Kysely<Database>,
  orgId: string,
  checksum: string,
): Promise<ArtifactBundleStatus | undefined> {
  return db
    .selectFrom('artifact_bundles')
    .select(['id', 'state', 'detail', 'created_at'])
    .where('org_id', '=', orgId)
    .where('checksum', '=', checksum)
    .executeTakeFirst();
}

/**
 * Claims the assembly of a bundle: true when this call made its row (state assembling), false when one exists (another
 * request, maybe in another process, assembles it or did).
 */
export async function claimArtifactBundle(
  db: Kysely<Database>,
  bundle: {
    id: string;
    orgId: string;
    checksum: string;
    chunks: string[];
    release: string | null;
    dist: string | null;
  },
  now: number,
): Promise<boolean> {
  const inserted = await db
    .insertInto('artifact_bundles')
    .values({
      id: bundle.id,
      org_id: bundle.orgId,
      checksum: bundle.checksum,
      state: 'assembling',
      detail: null,
      release: bundle.release,
      dist: bundle.dist,
      chunks: JSON.stringify(bundle.chunks),
      created_at: now,
      last_used_at: now,
    })
    .onConflict((conflict) => conflict.columns(['org_id', 'checksum']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Forgets an assembly that was interrupted (its process died), so that the next `assemble` starts it again. */
export async function dropStaleArtifactBundle(db: Kysely<Database>, id: string, startedBefore: number): Promise<void> {
  await db
    .deleteFrom('artifact_bundles')
    .where('id', '=', id)
    .where('state', '=', 'assembling')
    .where('created_at', '<', startedBefore)
    .execute();
}

export async function failArtifactBundle(db: Kysely<Database>, id: string, detail: string): Promise<void> {
  await db.updateTable('artifact_bundles').set({ state: 'error', detail }).where('id', '=', id).execute();
}

export interface NewArtifactFile {
  path: string;
  url: string;
  type: string;
  debugId: string | null;
  sourcemap: string | null;
  content: Buffer;
}

/**
 * Stores an assembled bundle's files and marks it ok, in one transaction (a poll never sees `ok` before its files).
 * Its chunks stay until the daily clean-up.
 */
export async function completeArtifactBundle(
  db: Kysely<Database>,
  bundle: { id: string; orgId: string; size: number; chunks: string[]; release: string | null; dist: string | null },
  files: NewArtifactFile[],
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // A few rows a statement: each holds file contents of up to the per-file cap.
    for (let start = 0; start < files.length; start += 16) {
      await trx
        .insertInto('artifact_files')
        .values(
          files.slice(start, start + 16).map((file) => ({
            bundle_id: bundle.id,
            org_id: bundle.orgId,
            path: file.path,
            url: file.url,
            type: file.type,
            debug_id: file.debugId,
            sourcemap: file.sourcemap,
            content: file.content,
            size: file.content.length,
          })),
        )
        .execute();
    }
    await trx
      .updateTable('artifact_bundles')
      .set({
        state: 'ok',
        detail: null,
        size: bundle.size,
        file_count: files.length,
        release: bundle.release,
        dist: bundle.dist,
      })
      .where('id', '=', bundle.id)
      .execute();
  });
  // The chunks stay until the daily clean-up: another bundle of the organization may be assembling from some of them
  // (bundles share chunks when their first bytes agree), and deleting them here would fail it.
}

export interface ArtifactRetentionReport {
  bundlesDeleted: number;
  chunksDeleted: number;
}

/**
 * Bundles unused (no event mapped by them) for `retentionDays` go, with their files; chunks no bundle was assembled
 * from within a day go too (an upload that stopped half-way). Failed bundles go with the same age as unused ones.
 */
export async function deleteUnusedArtifacts(
  db: Kysely<Database>,
  retentionDays: number,
  now: number,
): Promise<ArtifactRetentionReport> {
  const bundles = await db
    .deleteFrom('artifact_bundles')
    .where('last_used_at', '<', now - retentionDays * DAY)
    .executeTakeFirst();
  const chunks = await db
    .deleteFrom('upload_chunks')
    .where('created_at', '<', now - DAY)
    .executeTakeFirst();
  return { bundlesDeleted: Number(bundles.numDeletedRows), chunksDeleted: Number(chunks.numDeletedRows) };
}

/** For tests and the dashboard: the files of the organization's ok bundles with this debug ID. */
export async function findArtifactFilesByDebugId(db: Kysely<Database>, orgId: string, debugId: string) {
  return db
    .selectFrom('artifact_files')
    .innerJoin('artifact_bundles', 'artifact_bundles.id', 'artifact_files.bundle_id')
    .select(['artifact_files.url', 'artifact_files.type', 'artifact_files.sourcemap', 'artifact_files.size'])
    .where('artifact_files.org_id', '=', orgId)
    .where('artifact_files.debug_id', '=', debugId)
    .where('artifact_bundles.state', '=', 'ok')
    .orderBy('artifact_files.type')
    .execute();
}
