// Retention of uploads, in the hourly retention run: a bundle unused for RETENTION_DAYS goes with its files; chunks
// no bundle was assembled from within a day go; a bundle in use stays.
import { describe, expect, it } from 'vitest';
import { startTestServer } from './harness';
import { bundleArchive, sha1, uploadArchive, uploadChunks, uploadTeam } from './sourcemaps';

const DAY = 24 * 60 * 60 * 1000;
let now = Date.now();
const server = await startTestServer({
  clock: () => now,
  retention: { retentionDays: 90, maxEventsPerIssue: 100, intervalMs: 3_600_000 },
});
const MAP = JSON.stringify({ version: 3, sources: ['app.js'], names: [], mappings: 'AAAA' });

describe('retention of uploads', () => {
  it('deletes stale chunks after a day and bundles unused for RETENTION_DAYS, with their files', async () => {
    const { org, token } = await uploadTeam(server);
    const kept = bundleArchive({ 'files/_/_/a.js.map': { url: '~/a.js.map', type: 'source_map', data: MAP } });
    const unused = bundleArchive({ 'files/_/_/b.js.map': { url: '~/b.js.map', type: 'source_map', data: MAP } });
    expect((await uploadArchive(server, token, org.slug, kept)).body.state).toBe('ok');
    expect((await uploadArchive(server, token, org.slug, unused)).body.state).toBe('ok');
    const stray = Buffer.from('a chunk of an upload that stopped half-way');
    expect((await uploadChunks(server, token, org.slug, [stray])).status).toBe(200);
    const rows = async () => ({
      chunks: (
        await server.database.db.selectFrom('upload_chunks').select('checksum').where('org_id', '=', org.id).execute()
      )
        .map((row) => row.checksum)
        .sort(),
      bundles: (
        await server.database.db
          .selectFrom('artifact_bundles')
          .select('checksum')
          .where('org_id', '=', org.id)
          .execute()
      )
        .map((row) => row.checksum)
        .sort(),
      files: Number(
        (
          await server.database.db
            .selectFrom('artifact_files')
            .select((eb) => eb.fn.countAll().as('count'))
            .where('org_id', '=', org.id)
            .executeTakeFirstOrThrow()
        ).count,
      ),
    });

    now += DAY / 2;
    await server.retention?.runNow();
    // Within a day every chunk stays, the assembled bundles' (each archive is one chunk here) and the stray one.
    expect(await rows()).toEqual({
      chunks: [sha1(kept), sha1(unused), sha1(stray)].sort(),
      bundles: [sha1(kept), sha1(unused)].sort(),
      files: 2,
    });

    now += DAY;
    await server.retention?.runNow();
    expect((await rows()).chunks).toEqual([]);

    // One bundle maps an event now and then (symbolication renews last_used_at); the other is never used.
    now += 89 * DAY;
    await server.database.db
      .updateTable('artifact_bundles')
      .set({ last_used_at: now })
      .where('checksum', '=', sha1(kept))
      .execute();
    now += 2 * DAY;
    await server.retention?.runNow();
    expect(await rows()).toEqual({ chunks: [], bundles: [sha1(kept)], files: 1 });
  });
});
