// The real sentry-cli, 2.58.6 (what the bundler plugins run) and 3.8.0, managing releases and deploys with nothing but
// an org token: what each command stores and prints. A recording proxy sits in front of the collector; with
// RECORD_SENTRY_CLI=1 what each client sent is written to fixtures/sentry-cli/, which sentry-cli-replay.test.ts
// replays without the binaries.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import SentryCli from '@sentry/cli';
import { afterAll, describe, expect, it } from 'vitest';
import { makeEvent, sendBatch } from './harness';
import { releaseTeam } from './release-team';
import { startRecordingProxy, writeRecording } from './sentry-cli-recorder';

const proxy = await startRecordingProxy();
afterAll(() => proxy.stop());
const { startTestServer } = await import('./harness');
const server = await startTestServer({ publicUrl: proxy.url });
proxy.target = server.url.replace('localhost', '127.0.0.1');

const run = promisify(execFile);
const clients = [
  { name: 'sentry-cli-2', binary: SentryCli.getPath(), version: 'web@1.0.0+cli2' },
  {
    name: 'sentry-cli-3',
    binary: fileURLToPath(new URL('../node_modules/sentry-cli-3/bin/sentry-cli', import.meta.url)),
    version: 'web@1.0.0+cli3',
  },
];

describe.each(clients)('$name', ({ name, binary, version }) => {
  it('creates, lists, shows, finalizes, deploys and deletes a release with only SENTRY_AUTH_TOKEN', async () => {
    const { owner, org, shop, token, call } = await releaseTeam(server);
    proxy.recorded.length = 0;
    const env = { PATH: process.env.PATH ?? '', HOME: '/nonexistent', SENTRY_AUTH_TOKEN: token };
    const cli = (...args: string[]) => run(binary, args, { env });
    const stored = () =>
      server.database.db
        .selectFrom('releases')
        .selectAll('releases')
        .innerJoin('organizations', 'organizations.id', 'releases.org_id')
        .where('organizations.slug', '=', org.slug)
        .where('version', '=', version)
        .executeTakeFirst();

    await cli('releases', 'new', '-o', org.slug, '-p', shop.slug, version);
    expect(await stored()).toMatchObject({ version, date_released: null });
    const apps = await server.database.db
      .selectFrom('release_apps')
      .select('app_key')
      .where('version', '=', version)
      .execute();
    expect(apps).toEqual([{ app_key: shop.appKey }]);

    // An event in the release: the list shows its new issue and last event.
    await sendBatch(server, shop.appKey, [makeEvent({ fingerprint: 'js:cli', release: version })]);
    const list = await cli('releases', 'list', '-o', org.slug, '-p', shop.slug);
    expect(list.stdout).toContain(version);
    const info = await cli('releases', 'info', '-o', org.slug, '-p', shop.slug, version);
    expect(info.stdout).toContain(version);

    await cli('releases', 'finalize', '-o', org.slug, '-p', shop.slug, version);
    expect((await stored())?.date_released).toEqual(expect.any(Number));

    await cli('deploys', 'new', '-o', org.slug, '-r', version, '-e', 'production', '-n', 'first');
    const deploys = await cli('deploys', 'list', '-o', org.slug, '-r', version);
    expect(deploys.stdout).toContain('production');
    const read = await call('GET', `/api/0/organizations/${org.slug}/releases/${version}/`, token);
    expect(read.body).toMatchObject({
      version,
      deployCount: 1,
      lastDeploy: { environment: 'production', name: 'first' },
      newGroups: 1,
      dateReleased: expect.any(String),
    });

    await cli('releases', 'delete', '-o', org.slug, '-p', shop.slug, version);
    expect(await stored()).toBeUndefined();

    // Every request got a 2xx; the token never reaches the recording.
    expect(proxy.recorded.filter((request) => request.status >= 300)).toEqual([]);
    expect(JSON.stringify(proxy.recorded)).not.toContain(token);
    if (process.env.RECORD_SENTRY_CLI === '1') {
      const projects = await call('GET', `/api/0/organizations/${org.slug}/projects/`, owner.token);
      const projectId = projects.body.find((project: { slug: string }) => project.slug === shop.slug).id;
      await writeRecording(
        fileURLToPath(new URL(`./fixtures/sentry-cli/${name}.json`, import.meta.url)),
        proxy.recorded,
        { org: org.slug, project: shop.slug, projectId },
      );
    }
  });
});
