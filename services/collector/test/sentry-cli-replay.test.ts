// What sentry-cli 2.x and 3.x sent (fixtures/sentry-cli/, written by sentry-cli-releases.test.ts with
// RECORD_SENTRY_CLI=1), replayed over HTTP against fresh organizations: the wire format stays covered without the
// binaries. Each request must get the status it got then, and a release or deploy in Sentry's shape.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startTestServer } from './harness';
import { releaseTeam } from './release-team';
import type { RecordedRequest } from './sentry-cli-recorder';

const server = await startTestServer();
const recordings = ['sentry-cli-2', 'sentry-cli-3'].map((name) => ({
  name,
  requests: JSON.parse(
    readFileSync(new URL(`./fixtures/sentry-cli/${name}.json`, import.meta.url), 'utf8'),
  ) as RecordedRequest[],
}));

describe.each(recordings)('$name, replayed', ({ requests }) => {
  it('gets the statuses and shapes the real client got', async () => {
    const { org, shop, owner, token, call } = await releaseTeam(server);
    const projects = await call('GET', `/api/0/organizations/${org.slug}/projects/`, owner.token);
    const projectId = projects.body.find((project: { slug: string }) => project.slug === shop.slug).id;
    const fill = (text: string) =>
      text.replaceAll('{org}', org.slug).replaceAll('{project}', shop.slug).replaceAll('{projectId}', projectId);
    for (const request of requests) {
      const path = fill(request.path) + (request.query ? `?${request.query}` : '');
      const body = request.body === null ? undefined : JSON.parse(fill(JSON.stringify(request.body)));
      const reply = await call(request.method, path, token, body);
      expect(reply.status, `${request.method} ${request.path}`).toBe(request.status);
      if (request.status === 204) expect(reply.body).toBeUndefined();
      else if (request.path.endsWith('/deploys/'))
        for (const deploy of [reply.body].flat())
          expect(deploy).toMatchObject({ environment: expect.any(String), dateFinished: expect.any(String) });
      else
        for (const release of [reply.body].flat())
          expect(release).toMatchObject({
            version: expect.any(String),
            dateCreated: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
            newGroups: expect.any(Number),
            projects: [{ slug: shop.slug, name: shop.name }],
          });
    }
  });
});
