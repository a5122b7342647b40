// Every dashboard endpoint against own, foreign, missing, garbage and logged-out tokens.
import { describe, expect, it } from 'vitest';
import { createApp, makeEvent, sendBatch, signUp, startTestServer } from './harness';

const server = await startTestServer();
const owner = await signUp(server);
const stranger = await signUp(server);
const { appKey } = await createApp(server, owner.token);
await sendBatch(server, appKey, [makeEvent({ fingerprint: 'js:secret', message: 'owner secret' })]);
const loggedOut = await signUp(server);
await server.call('POST', '/api/auth/logout', { token: loggedOut.token });

const issueId = `${appKey}:js:secret`;
const scoped = [
  `/api/overview?appKey=${appKey}`,
  `/api/issues?appKey=${appKey}`,
  `/api/issues/${issueId}`,
  `/api/issues/${encodeURIComponent(issueId)}`,
];
const unscoped = ['/api/overview', '/api/issues', '/api/apps', '/api/auth/me'];

describe('dashboard authorization matrix', () => {
  it.each(scoped)('%s: 200 for the owner, 404 for another user, indistinguishable from a missing app', async (path) => {
    expect((await server.call('GET', path, { token: owner.token })).status).toBe(200);
    const foreign = await server.call('GET', path, { token: stranger.token });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
    const missing = await server.call(
      'GET',
      path.replace(appKey, `${appKey.slice(0, -1)}${appKey.endsWith('0') ? '1' : '0'}`),
      { token: owner.token },
    );
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(foreign.body);
  });

  it.each([...scoped, ...unscoped])('%s: 401 with no, garbage or logged-out token', async (path) => {
    for (const token of [undefined, 'garbage', 'session_', loggedOut.token]) {
      const reply = await server.call('GET', path, { token });
      expect(reply.status, String(token)).toBe(401);
      expect(reply.body.error.code).toBe('UNAUTHENTICATED');
    }
  });

  it('never shows another user’s data in lists or totals', async () => {
    const overview = await server.call('GET', '/api/overview', { token: stranger.token });
    expect(overview.body.totals.events).toBe(0);
    const issues = await server.call('GET', '/api/issues', { token: stranger.token });
    expect(issues.body.issues).toEqual([]);
    expect(JSON.stringify(issues.body)).not.toContain('owner secret');
  });

  it('does not follow a cursor into another user’s issues', async () => {
    const ownerPage = await server.call('GET', '/api/issues?limit=1', { token: owner.token });
    expect(ownerPage.body.issues).toHaveLength(1);
    // A cursor is a position, not a grant: the stranger gets only their own (empty) list from it.
    const forged = Buffer.from(JSON.stringify(['lastSeen', Date.now() + 1e9, appKey, 'zzz'])).toString('base64url');
    const strangerPage = await server.call('GET', `/api/issues?cursor=${forged}`, { token: stranger.token });
    expect(strangerPage.status).toBe(200);
    expect(strangerPage.body.issues).toEqual([]);
  });
});
