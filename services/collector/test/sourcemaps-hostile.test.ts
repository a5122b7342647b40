// Hostile uploads: archives no sentry-cli makes (bombs, paths out of the archive, links, 100k entries, broken maps, no
// manifest), chunks that lie about their SHA-1 or inflate past the chunk size, another organization's chunks, and
// callers without the right. Each gets a clear `{ detail }` or `state: error` with a detail, never a 5xx.
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { makeEvent, sendBatch, signUp, startTestServer } from './harness';
import { assembleBundle, bundleArchive, sha1, uploadArchive, uploadChunks, uploadTeam, zipArchive } from './sourcemaps';

const server = await startTestServer();

const MAP = JSON.stringify({ version: 3, sources: ['app.js'], names: [], mappings: 'AAAA' });
const DEBUG_ID = '0b5e2a7c-31f4-4a9e-9c1d-5a6b7c8d9e0f';
const goodFiles = {
  'files/_/_/app.min.js': { url: '~/app.min.js', type: 'minified_source', data: 'a()', debugId: DEBUG_ID },
  'files/_/_/app.min.js.map': { url: '~/app.min.js.map', type: 'source_map', data: MAP, debugId: DEBUG_ID },
};
const manifestEntry = (files: Record<string, unknown>) => ({
  name: 'manifest.json',
  data: Buffer.from(JSON.stringify({ files })),
});

async function expectBundleError(archive: Buffer, detail: RegExp) {
  const { org, token } = await uploadTeam(server);
  const reply = await uploadArchive(server, token, org.slug, archive);
  expect(reply.status).toBe(200);
  expect(reply.body).toEqual({ state: 'error', missingChunks: [], detail: expect.stringMatching(detail) });
  // Polled again, it says the same (the state is stored, not recomputed).
  expect((await assembleBundle(server, token, org.slug, archive)).body.state).toBe('error');
}

describe('hostile archives end in state error with a detail', () => {
  it('a well-made bundle is ok (the baseline the others differ from)', async () => {
    const { org, token } = await uploadTeam(server);
    const archive = bundleArchive(goodFiles);
    const reply = await uploadArchive(server, token, org.slug, archive);
    expect(reply.body).toEqual({ state: 'ok', missingChunks: [], detail: null });
  });

  it('a zip bomb: 40 MiB of zeros deflated to 40 KiB; the same declaring 1 KiB; one file over 50 MiB', async () => {
    const zeros = Buffer.alloc(40 * 1024 * 1024);
    await expectBundleError(zipArchive([{ name: 'files/_/_/bomb.js', data: zeros }, manifestEntry({})]), /zip bomb/);
    // Its headers lie: the inflating stops where the declared size ends.
    await expectBundleError(
      zipArchive([{ name: 'files/_/_/bomb.js', data: zeros, declaredSize: 1024 }, manifestEntry({})]),
      /too many bytes|size mismatch/,
    );
    await expectBundleError(
      zipArchive([{ name: 'files/_/_/big.js', data: Buffer.alloc(1024), declaredSize: 60 * 1024 * 1024 }]),
      /at most 52428800/,
    );
  });

  it('an entry named ../ or with an absolute path', async () => {
    await expectBundleError(zipArchive([{ name: '../escape.js', data: Buffer.from('x') }]), /relative path/);
    await expectBundleError(zipArchive([{ name: '/etc/passwd', data: Buffer.from('x') }]), /absolute path/);
  });

  it('a NUL in an entry name or in a manifest string (PostgreSQL text cannot hold one)', async () => {
    await expectBundleError(zipArchive([{ name: 'files/_/_/a\u0000.js', data: Buffer.from('x') }]), /cannot be stored/);
    await expectBundleError(
      zipArchive([
        { name: 'files/_/_/a.js', data: Buffer.from('x') },
        manifestEntry({ 'files/_/_/a.js': { url: '~/a\u0000.js', type: 'minified_source' } }),
      ]),
      /cannot be stored/,
    );
  });

  it('a symbolic link, and the same name twice', async () => {
    await expectBundleError(
      zipArchive([{ name: 'files/_/_/link.js', data: Buffer.from('/etc/passwd'), mode: 0o120777 }]),
      /symbolic link/,
    );
    await expectBundleError(
      zipArchive([
        { name: 'manifest.json', data: Buffer.from('{"files":{}}') },
        { name: 'manifest.json', data: Buffer.from('{"files":{}}') },
      ]),
      /twice/,
    );
  });

  it('more than 100 MiB unpacked, and 100k entries (refused before a byte is unpacked)', async () => {
    // Random bytes do not deflate: 300 KiB claiming 40 MiB is under the ratio, and three of them pass 100 MiB.
    const noise = randomBytes(300 * 1024);
    await expectBundleError(
      zipArchive([1, 2, 3].map((index) => ({ name: `f/${index}.js`, data: noise, declaredSize: 40 * 1024 * 1024 }))),
      /more than 104857600 bytes/,
    );
    const started = Date.now();
    await expectBundleError(
      zipArchive(Array.from({ length: 100_000 }, (_, index) => ({ name: `f${index}`, store: true }))),
      // The tiny writer has no ZIP64: its end record counts 65,535 of the 100k entries, still far over the cap.
      /65535 entries; at most 10000/,
    );
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('a broken source map, a missing manifest, a manifest naming a file it lacks, and not a ZIP at all', async () => {
    await expectBundleError(
      bundleArchive({
        ...goodFiles,
        'files/_/_/app.min.js.map': { url: '~/m', type: 'source_map', data: '{"version":3' },
      }),
      /not JSON/,
    );
    await expectBundleError(
      bundleArchive({ 'files/_/_/m': { url: '~/m', type: 'source_map', data: '{"version":2,"mappings":""}' } }),
      /not a source map/,
    );
    await expectBundleError(zipArchive([{ name: 'files/_/_/app.js', data: Buffer.from('x') }]), /no manifest.json/);
    await expectBundleError(
      zipArchive([manifestEntry({ 'files/x': { url: '~/x', type: 'source' } })]),
      /does not hold/,
    );
    await expectBundleError(Buffer.from('not a zip, just bytes'), /not a ZIP/);
  });

  it('chunks whose SHA-1 is not the checksum assemble names', async () => {
    const { org, token } = await uploadTeam(server);
    const archive = bundleArchive(goodFiles);
    await uploadChunks(server, token, org.slug, [archive]);
    const reply = await server.call('POST', `/api/0/organizations/${org.slug}/artifactbundle/assemble/`, {
      token,
      body: { checksum: 'f'.repeat(40), chunks: [sha1(archive)], projects: ['shop'] },
    });
    expect(reply.body.state).toBe('assembling');
    const polled = await assembleBundle(server, token, org.slug, archive, { checksum: 'f'.repeat(40) });
    expect(polled.body).toEqual({ state: 'error', missingChunks: [], detail: expect.stringMatching(/checksum/) });
  });
});

describe('chunks', () => {
  it('a chunk named by another SHA-1, a gzip bomb, too many parts, a body too large: 400/413 with { detail }', async () => {
    const { org, token } = await uploadTeam(server);
    const wrong = await uploadChunks(server, token, org.slug, [Buffer.from('hello')], ['a'.repeat(40)]);
    expect(wrong).toEqual({ status: 400, body: { detail: expect.stringMatching(/SHA-1/) } });
    expect((await uploadChunks(server, token, org.slug, [Buffer.from('x')], ['not-a-sha1'])).status).toBe(400);
    // 64 MiB of zeros gzip to 64 KiB; inflating stops at the chunk size.
    const bomb = Buffer.alloc(64 * 1024 * 1024);
    const form = new FormData();
    form.append('file_gzip', new Blob([gzipSync(bomb)]), sha1(bomb));
    const bombed = await fetch(`${server.url}/api/0/organizations/${org.slug}/chunk-upload/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    expect(bombed.status).toBe(400);
    expect(((await bombed.json()) as { detail: string }).detail).toMatch(/unpacks to more than 8388608 bytes/);
    const many = await uploadChunks(
      server,
      token,
      org.slug,
      [1, 2, 3, 4, 5].map((n) => Buffer.from(String(n))),
    );
    expect(many.status).toBe(400);
    const tooLarge = await fetch(`${server.url}/api/0/organizations/${org.slug}/chunk-upload/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'multipart/form-data; boundary=x' },
      body: Buffer.alloc(33 * 1024 * 1024),
    });
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toEqual({ detail: expect.any(String) });
    expect((await uploadChunks(server, token, org.slug, [Buffer.from('garbage')], undefined)).status).toBe(200);
    // Nothing of the refused requests was stored.
    const stored = await server.database.db
      .selectFrom('upload_chunks')
      .select('checksum')
      .where('org_id', '=', org.id)
      .execute();
    expect(stored.map((row) => row.checksum)).toEqual([sha1(Buffer.from('garbage'))]);
  });

  it("belong to the organization that uploaded them: another org's assemble lists them missing", async () => {
    const mine = await uploadTeam(server, 'Mine');
    const theirs = await uploadTeam(server, 'Theirs');
    const archive = bundleArchive(goodFiles);
    await uploadChunks(server, mine.token, mine.org.slug, [archive]);
    const reply = await server.call('POST', `/api/0/organizations/${theirs.org.slug}/artifactbundle/assemble/`, {
      token: theirs.token,
      body: { checksum: sha1(archive), chunks: [sha1(archive)], projects: ['shop'] },
    });
    expect(reply.body).toEqual({ state: 'not_found', missingChunks: [sha1(archive)], detail: null });
    // Once assembled in one org, the other still holds nothing.
    expect((await assembleBundle(server, mine.token, mine.org.slug, archive)).body.state).toBe('ok');
    const again = await server.call('POST', `/api/0/organizations/${theirs.org.slug}/artifactbundle/assemble/`, {
      token: theirs.token,
      body: { checksum: sha1(archive), chunks: [sha1(archive)], projects: ['shop'] },
    });
    expect(again.body.state).toBe('not_found');
  });

  it('need a token of the organization with scope releases: 401 without one, 404 for another org, 403 read-only', async () => {
    const { org, owner } = await uploadTeam(server);
    const stranger = await uploadTeam(server, 'Stranger');
    const paths = [
      ['GET', `/api/0/organizations/${org.slug}/chunk-upload/`],
      ['POST', `/api/0/organizations/${org.slug}/artifactbundle/assemble/`],
    ] as const;
    const body = { checksum: 'a'.repeat(40), chunks: ['a'.repeat(40)], projects: ['shop'] };
    for (const [method, path] of paths) {
      const anonymous = await server.call(method, path, { body: method === 'POST' ? body : undefined });
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toEqual({ detail: expect.any(String) });
      const foreign = await server.call(method, path, {
        token: stranger.token,
        body: method === 'POST' ? body : undefined,
      });
      expect(foreign.status).toBe(404);
    }
    const readOnly = (
      await server.call('POST', '/api/tokens', {
        token: owner.token,
        body: { name: 'r', scopes: ['read'], org: org.slug },
      })
    ).body.token.value;
    expect((await server.call('GET', paths[0][1], { token: readOnly })).status).toBe(403);
    expect((await uploadChunks(server, stranger.token, org.slug, [Buffer.from('x')])).status).toBe(404);
    // Bodies that are not what assemble takes.
    const bad = await server.call('POST', paths[1][1], { token: (await uploadTeam(server, 'Own')).token, body: {} });
    expect(bad.status).toBe(404);
  });

  it('assemble validates its body: 400 with { detail }', async () => {
    const { org, token } = await uploadTeam(server);
    const path = `/api/0/organizations/${org.slug}/artifactbundle/assemble/`;
    for (const body of [
      {},
      { checksum: 'x', chunks: [] },
      { checksum: 'a'.repeat(40), chunks: Array(20).fill('a'.repeat(40)) },
      { checksum: 'a'.repeat(40), chunks: ['a'.repeat(40)], projects: ['no-such-app'] },
      [],
    ]) {
      const reply = await server.call('POST', path, { token, body });
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body).toEqual({ detail: expect.any(String) });
    }
  });
});

describe('the upload budget', () => {
  it('is apart from ingestion’s: uploads held at its limit get 503, while events are still accepted', async () => {
    const { org, token } = await uploadTeam(server);
    const user = await signUp(server);
    const app = (await server.call('POST', '/api/apps', { token: user.token, body: { name: 'Web', type: 'web' } })).body
      .app;
    // Two uploads that declare 32 MiB each and send nothing more hold the whole default budget (64 MiB).
    const held: Array<ReturnType<typeof holdUpload>> = [holdUpload(org.slug, token), holdUpload(org.slug, token)];
    await Promise.all(held.map((request) => request.sent));
    await expect.poll(() => server.uploadBudget.bytesInFlight).toBeGreaterThanOrEqual(64 * 1024 * 1024);
    const refused = await uploadChunks(server, token, org.slug, [Buffer.from('one more')]);
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({ detail: expect.any(String) });
    expect(server.ingestBudget.bytesInFlight).toBe(0);
    const events = await sendBatch(server, app.appKey, [makeEvent({ fingerprint: 'js:during-upload' })]);
    expect(events.status).toBeLessThan(300);
    for (const request of held) request.abort();
    await expect.poll(() => server.uploadBudget.bytesInFlight).toBe(0);
    expect((await uploadChunks(server, token, org.slug, [Buffer.from('one more')])).status).toBe(200);
  });
});

/** A chunk upload that declares 32 MiB and sends only its first bytes, holding its reservation until aborted. */
function holdUpload(org: string, token: string) {
  const target = new URL(`${server.url.replace('localhost', '127.0.0.1')}/api/0/organizations/${org}/chunk-upload/`);
  const req = request(target, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'multipart/form-data; boundary=x',
      'content-length': String(32 * 1024 * 1024),
    },
  });
  req.on('error', () => undefined);
  const sent = new Promise<void>((resolve) => req.write('--x\r\n', () => resolve()));
  return { sent, abort: () => req.destroy() };
}
