// Triage against own, foreign, missing and logged-out tokens: another user's issues are never changed nor revealed.
import { describe, expect, it } from 'vitest';
import { createApp, makeEvent, sendBatch, signUp, startTestServer } from './harness';

const server = await startTestServer();
const owner = await signUp(server);
const stranger = await signUp(server);
const { appKey } = await createApp(server, owner.token);
await sendBatch(server, appKey, [
  makeEvent({
    fingerprint: 'js:secret',
    message: 'owner secret',
    release: 'secret-release',
    environment: 'secret-env',
  }),
]);
const strangerApp = await createApp(server, stranger.token);
await sendBatch(server, strangerApp.appKey, [makeEvent({ fingerprint: 'js:mine', message: 'stranger’s own' })]);
const loggedOut = await signUp(server);
await server.call('POST', '/api/auth/logout', { token: loggedOut.token });
const issueId = `${appKey}:js:secret`;

const ownerIssue = async () => (await server.call('GET', `/api/issues/${issueId}`, { token: owner.token })).body.issue;

describe('triage authorization', () => {
  it('PATCH of another user’s issue is 404, exactly like a missing one, and changes nothing', async () => {
    const foreign = await server.call('PATCH', `/api/issues/${issueId}`, {
      token: stranger.token,
      body: { status: 'resolved' },
    });
    expect(foreign.status).toBe(404);
    const missing = await server.call('PATCH', `/api/issues/${appKey}:js:nothing`, {
      token: stranger.token,
      body: { status: 'resolved' },
    });
    expect(missing.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    expect((await ownerIssue()).status).toBe('unresolved');
  });

  it('bulk PATCH skips another user’s ids without saying so', async () => {
    const reply = await server.call('PATCH', '/api/issues', {
      token: stranger.token,
      body: { ids: [issueId, `${strangerApp.appKey}:js:mine`], status: 'ignored' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ updated: 1 });
    const onlyForeign = await server.call('PATCH', '/api/issues', {
      token: stranger.token,
      body: { ids: [issueId], status: 'ignored' },
    });
    expect(onlyForeign.body).toEqual({ updated: 0 });
    expect((await ownerIssue()).status).toBe('unresolved');
  });

  it('filters never reach another user’s issues', async () => {
    for (const query of [
      'q=secret',
      'release=secret-release',
      'environment=secret-env',
      'status=unresolved',
      'sort=events',
      'type=error',
    ]) {
      const reply = await server.call('GET', `/api/issues?${query}`, { token: stranger.token });
      expect(reply.status).toBe(200);
      expect(
        reply.body.issues.every((issue: { appKey: string }) => issue.appKey === strangerApp.appKey),
        query,
      ).toBe(true);
      expect(reply.body.total).toBe(reply.body.issues.length);
    }
    expect((await server.call('GET', `/api/issues?appKey=${appKey}&q=secret`, { token: stranger.token })).status).toBe(
      404,
    );
  });

  it.each([
    ['PATCH', `/api/issues/${issueId}`, { status: 'resolved' }],
    ['PATCH', '/api/issues', { ids: [issueId], status: 'resolved' }],
    ['GET', `/api/issues?status=resolved&q=secret`, undefined],
  ])('%s %s: 401 with no, garbage or logged-out token', async (method, path, body) => {
    for (const token of [undefined, 'garbage', loggedOut.token]) {
      const reply = await server.call(method, path, { token, body });
      expect(reply.status, String(token)).toBe(401);
      expect(reply.body.error.code).toBe('UNAUTHENTICATED');
      expect(reply.headers.get('www-authenticate')).toBe('Bearer');
    }
    expect((await ownerIssue()).status).toBe('unresolved');
  });
});
