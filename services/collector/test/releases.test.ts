// Sentry's releases and deploys under /api/0/ through HTTP, as sentry-cli 2.x and 3.x call them: 201 and 208, the
// project-scoped paths, finalize, deploys, delete, Sentry's release object, and `{ detail }` errors.
import { describe, expect, it } from 'vitest';
import { makeEvent, sendBatch, startTestServer } from './harness';
import { releaseTeam } from './release-team';

let now = Date.parse('2026-11-26T10:00:00.000Z');
const server = await startTestServer({ clock: () => now });

describe('releases under /api/0/', () => {
  it('creates (201), answers an existing version with 208 and adds its projects, and reads it back', async () => {
    const { owner, org, shop, admin, token, call } = await releaseTeam(server);
    const created = await call('POST', `/api/0/organizations/${org.slug}/releases/`, token, {
      version: 'shop@1.0.0',
      projects: [shop.slug],
      dateStarted: '2026-11-26T09:59:00.123456789Z',
      ref: 'abc123',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      version: 'shop@1.0.0',
      shortVersion: '1.0.0',
      ref: 'abc123',
      url: null,
      dateCreated: '2026-11-26T10:00:00.000Z',
      dateStarted: '2026-11-26T09:59:00.123Z',
      dateReleased: null,
      firstEvent: null,
      lastEvent: null,
      newGroups: 0,
      commitCount: 0,
      deployCount: 0,
      lastDeploy: null,
      authors: [],
      data: {},
      projects: [{ slug: shop.slug, name: 'Shop', platform: 'web' }],
    });
    // 3.x sends a numeric project id as a number; the version exists, so 208 with the projects added.
    const again = await call('POST', `/api/0/organizations/${org.slug}/releases/`, token, {
      version: 'shop@1.0.0',
      projects: [Number(await projectId(call, org.slug, owner.token, admin.slug))],
    });
    expect(again.status).toBe(208);
    expect(again.body.projects.map((project: { slug: string }) => project.slug).sort()).toEqual(
      [admin.slug, shop.slug].sort(),
    );
    expect(again.body.ref).toBe('abc123');
    const read = await call('GET', `/api/0/organizations/${org.slug}/releases/shop@1.0.0/`, token);
    expect(read.status).toBe(200);
    expect(read.body.version).toBe('shop@1.0.0');
    // The project's paths (sentry-cli 2.x with one project).
    const scoped = await call('GET', `/api/0/projects/${org.slug}/${shop.slug}/releases/shop@1.0.0/`, token);
    expect(scoped.status).toBe(200);
  });

  it('creates on a project’s path, lists newest first (org and project, query, per_page), finalizes and deletes', async () => {
    const { org, shop, admin, token, call } = await releaseTeam(server);
    const onProject = await call('POST', `/api/0/projects/${org.slug}/${shop.slug}/releases/`, token, {
      version: '1.0.0+build.7',
      projects: [shop.slug],
    });
    expect(onProject.status).toBe(201);
    now += 1000;
    expect(
      (
        await call('POST', `/api/0/organizations/${org.slug}/releases/`, token, {
          version: '2.0.0',
          projects: [admin.slug],
        })
      ).status,
    ).toBe(201);
    const all = await call('GET', `/api/0/organizations/${org.slug}/releases/`, token);
    expect(all.body.map((release: { version: string }) => release.version)).toEqual(['2.0.0', '1.0.0+build.7']);
    const ofShop = await call('GET', `/api/0/projects/${org.slug}/${shop.slug}/releases/`, token);
    expect(ofShop.body.map((release: { version: string }) => release.version)).toEqual(['1.0.0+build.7']);
    const queried = await call('GET', `/api/0/organizations/${org.slug}/releases/?query=BUILD&per_page=1`, token);
    expect(queried.body.map((release: { version: string }) => release.version)).toEqual(['1.0.0+build.7']);
    const paged = await call('GET', `/api/0/organizations/${org.slug}/releases/?per_page=1&cursor=0:1:0`, token);
    expect(paged.body.map((release: { version: string }) => release.version)).toEqual(['1.0.0+build.7']);

    // A `+` arrives encoded as %2B (sentry-cli's path encoding).
    const finalized = await call('PUT', `/api/0/organizations/${org.slug}/releases/1.0.0%2Bbuild.7/`, token, {
      dateReleased: '2026-11-26T10:05:00Z',
    });
    expect(finalized.status, JSON.stringify(finalized.body)).toBe(200);
    expect(finalized.body.dateReleased).toBe('2026-11-26T10:05:00.000Z');
    // Another project's path does not hold it.
    expect(
      (await call('GET', `/api/0/projects/${org.slug}/${admin.slug}/releases/1.0.0%2Bbuild.7/`, token)).status,
    ).toBe(404);
    const deleted = await call('DELETE', `/api/0/projects/${org.slug}/${shop.slug}/releases/1.0.0%2Bbuild.7/`, token);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    const gone = await call('GET', `/api/0/organizations/${org.slug}/releases/1.0.0%2Bbuild.7/`, token);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ detail: expect.any(String) });
  });

  it('records deploys (201) and counts them on the release', async () => {
    const { org, shop, token, call } = await releaseTeam(server);
    await call('POST', `/api/0/organizations/${org.slug}/releases/`, token, { version: 'd@1', projects: [shop.slug] });
    const deploy = await call('POST', `/api/0/organizations/${org.slug}/releases/d@1/deploys/`, token, {
      environment: 'production',
      name: 'first',
    });
    expect(deploy.status).toBe(201);
    expect(deploy.body).toEqual({
      id: expect.stringMatching(/^dep_/),
      environment: 'production',
      name: 'first',
      url: null,
      dateStarted: null,
      dateFinished: '2026-11-26T10:00:01.000Z',
    });
    now += 1000;
    await call('POST', `/api/0/organizations/${org.slug}/releases/d@1/deploys/`, token, { environment: 'staging' });
    const deploys = await call('GET', `/api/0/organizations/${org.slug}/releases/d@1/deploys/`, token);
    expect(deploys.body.map((row: { environment: string }) => row.environment)).toEqual(['staging', 'production']);
    const release = await call('GET', `/api/0/organizations/${org.slug}/releases/d@1/`, token);
    expect(release.body).toMatchObject({ deployCount: 2, lastDeploy: { environment: 'staging' } });
  });

  it('lists no repositories, so that the bundler plugins go on without commits', async () => {
    const { org, token, call } = await releaseTeam(server);
    const repos = await call('GET', `/api/0/organizations/${org.slug}/repos/`, token);
    expect(repos).toMatchObject({ status: 200, body: [] });
    expect((await call('GET', '/api/0/organizations/nope/repos/', token)).status).toBe(404);
  });

  it('says what events arrived in a release: new issues, first and last event', async () => {
    const { org, shop, token, call } = await releaseTeam(server);
    await call('POST', `/api/0/organizations/${org.slug}/releases/`, token, { version: 'e@1', projects: [shop.slug] });
    await call('POST', `/api/0/organizations/${org.slug}/releases/`, token, { version: 'e@2', projects: [shop.slug] });
    const first = Date.parse('2026-11-26T09:00:00.000Z');
    await sendBatch(server, shop.appKey, [
      makeEvent({ fingerprint: 'js:old', release: 'e@1', timestamp: first }),
      makeEvent({ fingerprint: 'js:old', release: 'e@2', timestamp: first + 60_000 }),
      makeEvent({ fingerprint: 'js:new', release: 'e@2', timestamp: first + 120_000 }),
    ]);
    const [two, one] = (await call('GET', `/api/0/organizations/${org.slug}/releases/?query=e@`, token)).body;
    expect(one).toMatchObject({ version: 'e@1', newGroups: 1, firstEvent: '2026-11-26T09:00:00.000Z' });
    expect(two).toMatchObject({
      version: 'e@2',
      newGroups: 1,
      firstEvent: '2026-11-26T09:01:00.000Z',
      lastEvent: '2026-11-26T09:02:00.000Z',
    });
    // A later request's event of e@1, dated before every other: e@1's first event moves, and the issue it belongs to
    // stays new in e@2, where its first event arrived (as Sentry keeps an issue's first release).
    await sendBatch(server, shop.appKey, [
      makeEvent({ fingerprint: 'js:new', release: 'e@1', timestamp: first - 3_600_000 }),
    ]);
    const [twoAgain, oneAgain] = (await call('GET', `/api/0/organizations/${org.slug}/releases/?query=e@`, token)).body;
    expect(oneAgain).toMatchObject({
      version: 'e@1',
      newGroups: 1,
      firstEvent: '2026-11-26T08:00:00.000Z',
      lastEvent: '2026-11-26T09:00:00.000Z',
    });
    expect(twoAgain).toMatchObject({ version: 'e@2', newGroups: 1 });
  });
});

describe('release errors', () => {
  it('refuses versions Sentry refuses, unknown projects and bad bodies with 400 { detail }', async () => {
    const { org, shop, token, call } = await releaseTeam(server);
    const releases = `/api/0/organizations/${org.slug}/releases/`;
    for (const version of ['', 'latest', '..', 'a/b', 'a\tb', 'x'.repeat(201)]) {
      const reply = await call('POST', releases, token, { version, projects: [shop.slug] });
      expect(reply.status, version).toBe(400);
      expect(reply.body).toEqual({ detail: expect.stringMatching(/^version: the release version/) });
    }
    const unknown = await call('POST', releases, token, { version: '1', projects: ['nope'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toContain('"nope"');
    expect((await call('POST', releases, token, { version: '1', projects: [] })).status).toBe(400);
    expect((await call('POST', releases, token, { projects: [shop.slug] })).status).toBe(400);
    expect((await call('POST', releases, token, [1, 2])).status).toBe(400);
    const badDate = await call('POST', releases, token, { version: '1', projects: [shop.slug], dateStarted: 'soon' });
    expect(badDate.body.detail).toMatch(/dateStarted/);
    expect((await call('GET', `${releases}latest/`, token)).status).toBe(400);
    expect((await call('GET', `${releases}a%2Fb/`, token)).status).toBe(400);
    await call('POST', releases, token, { version: '1', projects: [shop.slug] });
    const noEnvironment = await call('POST', `${releases}1/deploys/`, token, { name: 'x' });
    expect(noEnvironment.status).toBe(400);
    expect((await call('POST', `${releases}2/deploys/`, token, { environment: 'production' })).status).toBe(404);
    expect((await call('GET', `/api/0/projects/${org.slug}/nope/releases/`, token)).status).toBe(404);
  });

  it('keeps organizations apart (404) and needs scope releases (403)', async () => {
    const mine = await releaseTeam(server);
    const theirs = await releaseTeam(server);
    await theirs.call('POST', `/api/0/organizations/${theirs.org.slug}/releases/`, theirs.token, {
      version: 'secret@1',
      projects: [theirs.shop.slug],
    });
    for (const [method, path] of [
      ['GET', `/api/0/organizations/${theirs.org.slug}/releases/`],
      ['GET', `/api/0/organizations/${theirs.org.slug}/releases/secret@1/`],
      ['DELETE', `/api/0/organizations/${theirs.org.slug}/releases/secret@1/`],
      ['POST', `/api/0/organizations/${theirs.org.slug}/releases/secret@1/deploys/`],
      ['GET', `/api/0/projects/${theirs.org.slug}/${theirs.shop.slug}/releases/`],
    ] as const) {
      const reply = await mine.call(method, path, mine.token, { environment: 'x' });
      expect(reply.status, path).toBe(404);
      expect(reply.body).toEqual({ detail: expect.any(String) });
    }
    // Their project's id (ids are global, slugs per organization) is unknown in mine.
    const theirId = await projectId(theirs.call, theirs.org.slug, theirs.owner.token, theirs.admin.slug);
    const crossed = await mine.call('POST', `/api/0/organizations/${mine.org.slug}/releases/`, mine.token, {
      version: 'x@1',
      projects: [theirId],
    });
    expect(crossed.status).toBe(400);
    const reader = await releaseTeam(server, ['read']);
    const refused = await reader.call('GET', `/api/0/organizations/${reader.org.slug}/releases/`, reader.token);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: expect.any(String) });
  });
});

async function projectId(
  call: (method: string, path: string, token: string | undefined) => Promise<{ body: unknown }>,
  org: string,
  token: string,
  slug: string,
): Promise<string> {
  const reply = await call('GET', `/api/0/organizations/${org}/projects/`, token);
  const found = (reply.body as Array<{ id: string; slug: string }>).find((project) => project.slug === slug);
  return (found as { id: string }).id;
}

describe('GET /api/apps/:appKey/releases', () => {
  it('lists releases and versions seen only in events, with events, new issues, deploys, artifacts and the source-map note', async () => {
    const { owner, org, shop, admin, token, call } = await releaseTeam(server);
    now = Date.parse('2026-11-26T12:00:00.000Z');
    await call('POST', `/api/0/organizations/${org.slug}/releases/`, token, { version: 'p@1', projects: [shop.slug] });
    await call('POST', `/api/0/organizations/${org.slug}/releases/p@1/deploys/`, token, { environment: 'production' });
    // Another app's release is not the shop's.
    await call('POST', `/api/0/organizations/${org.slug}/releases/`, token, { version: 'a@1', projects: [admin.slug] });
    const t = Date.parse('2026-11-26T11:00:00.000Z');
    await sendBatch(server, shop.appKey, [
      makeEvent({ fingerprint: 'js:a', release: 'p@1', timestamp: t }),
      makeEvent({ fingerprint: 'js:a', release: 'p@2', timestamp: t + 60_000 }),
      makeEvent({ fingerprint: 'js:b', release: 'p@2', timestamp: t + 120_000 }),
      makeEvent({ fingerprint: 'js:b', release: 'p@2', timestamp: t + 180_000 }),
      // js:a again in p@1, after its p@2 event: each release's first and last event skip the other's.
      makeEvent({ fingerprint: 'js:a', release: 'p@1', timestamp: t + 240_000 }),
    ]);
    // An assembled bundle of p@1 with two files (the uploads' rows, as assemble leaves them).
    const orgId = (
      await server.database.db
        .selectFrom('organizations')
        .select('id')
        .where('slug', '=', org.slug)
        .executeTakeFirstOrThrow()
    ).id;
    await server.database.db
      .insertInto('artifact_bundles')
      .values({
        id: `bundle_${org.slug}`,
        org_id: orgId,
        checksum: 'a'.repeat(40),
        state: 'ok',
        detail: null,
        release: 'p@1',
        dist: null,
        chunks: '[]',
        file_count: 2,
        created_at: now,
        last_used_at: now,
      })
      .execute();
    const reply = await server.call('GET', `/api/apps/${shop.appKey}/releases`, { token: owner.token });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const [created, seen, ...rest] = reply.body.releases;
    expect(rest).toEqual([]);
    expect(created).toEqual({
      version: 'p@1',
      shortVersion: '1',
      dateCreated: now,
      dateReleased: null,
      firstEvent: t,
      lastEvent: t + 240_000,
      events: 2,
      newIssues: 1,
      deploys: {
        count: 1,
        latest: [{ environment: 'production', name: null, url: null, dateStarted: null, dateFinished: now }],
      },
      artifacts: 2,
      noSourceMaps: false,
    });
    expect(seen).toMatchObject({
      version: 'p@2',
      dateCreated: null,
      firstEvent: t + 60_000,
      lastEvent: t + 180_000,
      events: 3,
      newIssues: 1,
      deploys: { count: 0, latest: [] },
      artifacts: 0,
      noSourceMaps: true,
    });
    const stranger = (await releaseTeam(server)).owner;
    expect((await server.call('GET', `/api/apps/${shop.appKey}/releases`, { token: stranger.token })).status).toBe(404);
    // An org token of scope releases only may not read the dashboard's view (releases.read takes scope read).
    expect((await server.call('GET', `/api/apps/${shop.appKey}/releases`, { token })).status).toBe(403);
  });
});
