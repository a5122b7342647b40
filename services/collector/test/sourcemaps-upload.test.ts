// Source-map uploads by the real clients: sentry-cli 2.58 and 3.8 (`sourcemaps inject` then `sourcemaps upload`) and
// `vite build` with @sentry/vite-plugin 5.3, each with nothing but an org token of scope releases. Every request goes
// through a recording proxy; RECORD_FIXTURES=1 writes what each client sent to fixtures/sentry-cli/uploads-*.json,
// which sourcemaps-replay.test.ts plays back.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findArtifactFilesByDebugId } from '@collector/db';
import { sentryVitePlugin } from '@sentry/vite-plugin';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer } from './harness';
import {
  bundleArchive,
  minifiedApp,
  type RecordedRequest,
  recordingProxy,
  SENTRY_CLI_2,
  SENTRY_CLI_3,
  sha1,
  uploadChunks,
  uploadTeam,
} from './sourcemaps';

const run = promisify(execFile);
const dashboardVite = new URL('../../dashboard/node_modules/vite/dist/node/index.js', import.meta.url).href;
let target = '';
const proxy = await recordingProxy(() => target);
afterAll(() => proxy.close());
// The proxy is the address clients use (PUBLIC_URL): the org token carries it, and the chunk-upload url is built on it.
const server = await startTestServer({ publicUrl: proxy.url });
target = server.url.replace('localhost', '127.0.0.1');

const env = (token: string) => ({ PATH: process.env.PATH ?? '', HOME: '/nonexistent', SENTRY_AUTH_TOKEN: token });

/** The debug ID sentry-cli's inject wrote into the map. */
async function injectedDebugId(dir: string): Promise<string> {
  const map = JSON.parse(await readFile(join(dir, 'dist', 'app.min.js.map'), 'utf8'));
  // 2.x writes debug_id, 3.x debugId (the TC39 proposal's name).
  const debugId = map.debugId ?? map.debug_id;
  expect(debugId).toMatch(/^[0-9a-f-]{36}$/);
  return debugId;
}

/** The requests since `from`, redacted (the org's slug and the token are the replay's own), for a fixture. */
async function keepRecording(name: string, from: number, orgSlug: string): Promise<RecordedRequest[]> {
  const requests = proxy.recorded.slice(from).map((request) => ({
    ...request,
    path: request.path.replace(`/${orgSlug}/`, '/{org}/'),
    answer: JSON.parse(
      JSON.stringify(request.answer).replaceAll(proxy.url, '{PUBLIC_URL}').replaceAll(orgSlug, '{org}'),
    ),
  }));
  if (process.env.RECORD_FIXTURES === '1')
    await writeFile(
      new URL(`./fixtures/sentry-cli/uploads-${name}.json`, import.meta.url),
      `${JSON.stringify(requests, null, 2)}\n`,
    );
  return requests;
}

describe.each([
  ['sentry-cli-2', SENTRY_CLI_2],
  ['sentry-cli-3', SENTRY_CLI_3],
])('%s sourcemaps inject + upload', (name, cli) => {
  it('uploads an artifact bundle by chunks, indexed by debug ID', async () => {
    const { org, token } = await uploadTeam(server);
    const dir = await minifiedApp();
    await run(cli, ['sourcemaps', 'inject', join(dir, 'dist')], { env: env(token) });
    const debugId = await injectedDebugId(dir);
    const from = proxy.recorded.length;
    const upload = await run(cli, ['sourcemaps', 'upload', '--project', 'shop', '--wait', join(dir, 'dist')], {
      env: env(token),
    });
    expect(upload.stdout + upload.stderr).not.toMatch(/error/i);
    const files = await findArtifactFilesByDebugId(server.database.db, org.id, debugId);
    expect(files.map((file) => [file.type, file.url])).toEqual([
      ['minified_source', '~/app.min.js'],
      ['source_map', '~/app.min.js.map'],
    ]);
    expect(files[0]?.sourcemap).toBe('app.min.js.map');
    const requests = await keepRecording(name, from, org.slug);
    const paths = requests.map((request) => `${request.method} ${request.path} ${request.status}`);
    expect(paths).toContain('GET /api/0/organizations/{org}/chunk-upload/ 200');
    expect(paths).toContain('POST /api/0/organizations/{org}/chunk-upload/ 200');
    expect(paths.at(-1)).toBe('POST /api/0/organizations/{org}/artifactbundle/assemble/ 200');
    expect(requests.at(-1)?.answer).toMatchObject({ state: 'ok', missingChunks: [] });
    // No 5xx anywhere, and every chunk went as gzip, named by its SHA-1.
    expect(requests.every((request) => request.status < 500)).toBe(true);

    // The same bundle again: the server holds it, so the client uploads no chunk.
    const again = proxy.recorded.length;
    await run(cli, ['sourcemaps', 'upload', '--project', 'shop', '--wait', join(dir, 'dist')], { env: env(token) });
    const second = proxy.recorded.slice(again).map((request) => `${request.method} ${request.path}`);
    expect(second.filter((path) => path.startsWith('POST') && path.includes('/chunk-upload/'))).toEqual([]);
  });

  it('with --release: the bundle is bound to the release and dist, its files found by URL too', async () => {
    const { org, token } = await uploadTeam(server);
    const dir = await minifiedApp('export const version = 2;');
    await run(cli, ['sourcemaps', 'inject', join(dir, 'dist')], { env: env(token) });
    const debugId = await injectedDebugId(dir);
    await run(
      cli,
      [
        'sourcemaps',
        'upload',
        '--project',
        'shop',
        '--release',
        'shop@1.0.0',
        '--dist',
        'web',
        '--wait',
        join(dir, 'dist'),
      ],
      { env: env(token) },
    );
    const bundle = await server.database.db
      .selectFrom('artifact_bundles')
      .select(['state', 'release', 'dist', 'file_count'])
      .where('org_id', '=', org.id)
      .executeTakeFirstOrThrow();
    expect(bundle).toEqual({ state: 'ok', release: 'shop@1.0.0', dist: 'web', file_count: 2 });
    expect(await findArtifactFilesByDebugId(server.database.db, org.id, debugId)).toHaveLength(2);
    // Chunks stay until the daily clean-up (another bundle may be assembling from them): kept, not duplicated.
    const chunks = await server.database.db
      .selectFrom('upload_chunks')
      .select('checksum')
      .where('org_id', '=', org.id)
      .execute();
    expect(chunks.length).toBeGreaterThan(0);
    expect(new Set(chunks.map((chunk) => chunk.checksum)).size).toBe(chunks.length);
  });
});

describe('the release’s assemble path (older sentry-cli without a project; 2.58 insists on --project)', () => {
  it('assembles the same bundles, bound to the release in the path, unencoded as clients send it', async () => {
    const { org, token } = await uploadTeam(server);
    const dir = await minifiedApp('export const version = 3;');
    const refused = await run(SENTRY_CLI_2, ['sourcemaps', 'upload', '--release', 'shop@3.0.0', join(dir, 'dist')], {
      env: env(token),
    }).catch((error: { stderr: string }) => error.stderr);
    expect(refused).toMatch(/project ID or slug is required/);
    const archive = bundleArchive({
      'files/_/_/app.min.js.map': {
        url: '~/app.min.js.map',
        type: 'source_map',
        data: await readFile(join(dir, 'dist', 'app.min.js.map'), 'utf8'),
      },
    });
    expect((await uploadChunks(server, token, org.slug, [archive])).status).toBe(200);
    const path = `/api/0/organizations/${org.slug}/releases/shop@3.0.0/assemble/`;
    const body = { checksum: sha1(archive), chunks: [sha1(archive)] };
    expect((await server.call('POST', path, { token, body })).body.state).toBe('assembling');
    await expect.poll(async () => (await server.call('POST', path, { token, body })).body.state).toBe('ok');
    const bundle = await server.database.db
      .selectFrom('artifact_bundles')
      .select(['state', 'release'])
      .where('org_id', '=', org.id)
      .executeTakeFirstOrThrow();
    expect(bundle).toEqual({ state: 'ok', release: 'shop@3.0.0' });
  });
});

describe('vite build with @sentry/vite-plugin 5.3 (sentry-cli 2.x inside)', () => {
  it('injects debug IDs and uploads the build’s bundle with nothing but url, org, project and an org token', async () => {
    const { org, token } = await uploadTeam(server);
    const dir = await mkdtemp(join(tmpdir(), 'vite-app-'));
    await writeFile(join(dir, 'index.html'), '<!doctype html><script type="module" src="./main.js"></script>\n');
    await writeFile(
      join(dir, 'main.js'),
      "export function checkout(cart) {\n  if (!cart.items.length) throw new Error('empty cart');\n}\ncheckout({ items: [1] });\n",
    );
    // The dashboard's vite (the collector has none of its own), so that the build is a real one.
    const { build } = (await import(dashboardVite)) as { build(config: Record<string, unknown>): Promise<unknown> };
    const from = proxy.recorded.length;
    await build({
      root: dir,
      logLevel: 'silent',
      configFile: false,
      build: { outDir: join(dir, 'dist'), sourcemap: true, minify: true },
      plugins: [
        sentryVitePlugin({
          url: proxy.url,
          org: org.slug,
          project: 'shop',
          authToken: token,
          telemetry: false,
          // The plugin's defaults (it creates the release, uploads, finalizes), but no commits: by default it sends this
          // checkout's git history (accepted and ignored), which a recording should not keep.
          release: { name: 'shop@2.0.0', inject: false, setCommits: false },
          errorHandler: (error) => {
            throw error;
          },
        }),
      ],
    });
    const bundlesOf = () =>
      server.database.db
        .selectFrom('artifact_bundles')
        .select(['id', 'state', 'release', 'file_count'])
        .where('org_id', '=', org.id)
        .execute();
    // The plugin does not wait for the assembly; it ends in the background.
    await expect.poll(async () => (await bundlesOf())[0]?.state).toBe('ok');
    const bundles = await bundlesOf();
    expect(bundles).toEqual([{ id: expect.any(String), state: 'ok', release: 'shop@2.0.0', file_count: 2 }]);
    const files = await server.database.db
      .selectFrom('artifact_files')
      .select(['type', 'debug_id'])
      .where('bundle_id', '=', bundles[0]?.id ?? '')
      .orderBy('type')
      .execute();
    expect(files.map((file) => file.type)).toEqual(['minified_source', 'source_map']);
    expect(files[0]?.debug_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(files[1]?.debug_id).toBe(files[0]?.debug_id);
    const release = await server.database.db
      .selectFrom('releases')
      .select(['version', 'date_released'])
      .where('org_id', '=', org.id)
      .executeTakeFirst();
    expect(release).toEqual({ version: 'shop@2.0.0', date_released: expect.any(Number) });
    const requests = await keepRecording('vite-plugin', from, org.slug);
    expect(requests.every((request) => request.status < 500)).toBe(true);
  });
});
