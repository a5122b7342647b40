// Working an issue as a team, through HTTP: assigning it to a member, the assignee filter, comments, and the issue's
// activity (who changed what, with the first event and the last regression from the issue itself).
import { describe, expect, it } from 'vitest';
import { makeEvent, sendBatch, signUp, startTestServer } from './harness';

let now = Date.now();
const server = await startTestServer({ clock: () => now });
const call = (method: string, path: string, token: string, body?: unknown) =>
  server.call(method, path, { token, body });

async function team() {
  const owner = await signUp(server);
  const org = (await call('POST', '/api/orgs', owner.token, { name: 'Team' })).body.org;
  const app = (await call('POST', '/api/apps', owner.token, { name: 'Shop', type: 'web', org: org.slug })).body.app;
  const colleague = await signUp(server);
  const invitation = await call('POST', `/api/orgs/${org.slug}/invitations`, owner.token, {
    email: colleague.email,
    role: 'member',
  });
  const link = invitation.body.invitation.url.split('/').pop();
  await call('POST', '/api/invitations/accept', colleague.token, { token: link });
  // Stamped with the server's clock, not the wall's: on a slow machine sign-ups take seconds, and an event stamped later
  // than the test's clock would sort its first_seen above the changes the test makes after it.
  await sendBatch(server, app.appKey, [
    makeEvent({ fingerprint: 'js:a', timestamp: now }),
    makeEvent({ fingerprint: 'js:b', timestamp: now }),
  ]);
  return { owner, colleague, org, app, a: `${app.appKey}:js:a`, b: `${app.appKey}:js:b` };
}

describe('assignment', () => {
  it('assigns an issue to a member, shows it on the issue, and filters by it', async () => {
    const { owner, colleague, org, a, b } = await team();
    const assigned = await call('PATCH', `/api/issues/${a}`, owner.token, { assignee: colleague.user.id });
    expect(assigned.status).toBe(200);
    expect(assigned.body.issue.assignee).toEqual({ id: colleague.user.id, email: colleague.email });
    expect((await call('GET', `/api/issues/${a}`, owner.token)).body.issue.assignee.id).toBe(colleague.user.id);
    const ids = async (query: string, token = owner.token) =>
      (await call('GET', `/api/issues?org=${org.slug}&${query}`, token)).body.issues.map(
        (issue: { id: string }) => issue.id,
      );
    expect(await ids('assignee=me', colleague.token)).toEqual([a]);
    expect(await ids('assignee=me')).toEqual([]);
    expect(await ids(`assignee=${colleague.user.id}`)).toEqual([a]);
    expect(await ids('assignee=none')).toEqual([b]);
    expect((await call('GET', '/api/issues?assignee=someone', owner.token)).status).toBe(400);
    // Unassigned again.
    expect((await call('PATCH', `/api/issues/${a}`, owner.token, { assignee: null })).body.issue.assignee).toBeNull();
    expect(await ids('assignee=none')).toHaveLength(2);
  });

  it('refuses an assignee outside the app’s organization with 400, and an empty change', async () => {
    const { owner, a } = await team();
    const outsider = await signUp(server);
    const reply = await call('PATCH', `/api/issues/${a}`, owner.token, { assignee: outsider.user.id });
    expect(reply.status).toBe(400);
    expect(reply.body.error.details[0].path).toBe('assignee');
    expect((await call('PATCH', `/api/issues/${a}`, owner.token, {})).status).toBe(400);
  });
});

describe('comments and activity', () => {
  it('records who changed the status, assigned and commented, newest first, with the first event and regression', async () => {
    const { owner, colleague, app, a } = await team();
    const firstSeen = (await call('GET', `/api/issues/${a}`, owner.token)).body.issue.firstSeenAt;
    now += 1000;
    await call('PATCH', `/api/issues/${a}`, colleague.token, { assignee: colleague.user.id });
    now += 1000;
    const comment = await call('POST', `/api/issues/${a}/comments`, colleague.token, { text: '  On it  ' });
    expect(comment.status).toBe(201);
    expect(comment.body.comment).toEqual({
      id: expect.stringMatching(/^comment_\d+$/),
      text: 'On it',
      author: { id: colleague.user.id, email: colleague.email },
      createdAt: now,
    });
    now += 1000;
    await call('PATCH', `/api/issues/${a}`, colleague.token, { status: 'resolved' });
    // Resolving again changes nothing and records nothing.
    await call('PATCH', `/api/issues/${a}`, colleague.token, { status: 'resolved' });
    now += 1000;
    await sendBatch(server, app.appKey, [makeEvent({ fingerprint: 'js:a', timestamp: now })]);
    const regressedAt = (await call('GET', `/api/issues/${a}`, owner.token)).body.issue.regressedAt;
    expect(regressedAt).not.toBeNull();

    const reply = await call('GET', `/api/issues/${a}/activity`, owner.token);
    expect(reply.status).toBe(200);
    const actor = { id: colleague.user.id, email: colleague.email };
    expect(reply.body.activity).toEqual([
      { type: 'regression', actor: null, data: {}, at: regressedAt },
      { type: 'status', actor, data: { from: 'unresolved', to: 'resolved' }, at: now - 1000 },
      { type: 'comment', actor, data: { id: comment.body.comment.id, text: 'On it' }, at: now - 2000 },
      { type: 'assignee', actor, data: { assignee: actor }, at: now - 3000 },
      { type: 'first_seen', actor: null, data: {}, at: firstSeen },
    ]);
    expect(reply.body.nextCursor).toBeNull();
    // Paged: the stored entries first, the issue's own on the last page.
    const page = await call('GET', `/api/issues/${a}/activity?limit=2`, owner.token);
    expect(page.body.activity.map((entry: { type: string }) => entry.type)).toEqual(['status', 'comment']);
    const rest = await call('GET', `/api/issues/${a}/activity?limit=2&cursor=${page.body.nextCursor}`, owner.token);
    expect(rest.body.activity.map((entry: { type: string }) => entry.type)).toEqual([
      'regression',
      'assignee',
      'first_seen',
    ]);
  });

  it('records bulk status changes too, one entry per issue that changed', async () => {
    const { owner, a, b } = await team();
    await call('PATCH', `/api/issues/${a}`, owner.token, { status: 'ignored' });
    const reply = await call('PATCH', '/api/issues', owner.token, { ids: [a, b], status: 'ignored' });
    expect(reply.body.updated).toBe(2);
    const types = async (id: string) =>
      (await call('GET', `/api/issues/${id}/activity`, owner.token)).body.activity.map(
        (entry: { type: string; data: { from?: string } }) =>
          `${entry.type}${entry.data.from ? `:${entry.data.from}` : ''}`,
      );
    expect(await types(a)).toEqual(['status:unresolved', 'first_seen']);
    expect(await types(b)).toEqual(['status:unresolved', 'first_seen']);
  });

  it('refuses empty and overlong comments, and throttles them', async () => {
    const { owner, a } = await team();
    expect((await call('POST', `/api/issues/${a}/comments`, owner.token, { text: '   ' })).status).toBe(400);
    expect((await call('POST', `/api/issues/${a}/comments`, owner.token, { text: 'x'.repeat(10_001) })).status).toBe(
      400,
    );
    expect((await call('POST', `/api/issues/${a}/comments`, owner.token, { text: 'x'.repeat(10_000) })).status).toBe(
      201,
    );
    expect((await call('POST', '/api/issues/web_nope:js:a/comments', owner.token, { text: 'x' })).status).toBe(404);

    const throttled = await startTestServer({ rateLimits: { actionsPerUser: { ratePerSecond: 1 / 60, burst: 2 } } });
    const user = await signUp(throttled);
    const app = (await throttled.call('POST', '/api/apps', { token: user.token, body: { name: 'S', type: 'web' } }))
      .body.app;
    await sendBatch(throttled, app.appKey, [makeEvent({ fingerprint: 'js:t' })]);
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      const reply = await throttled.call('POST', `/api/issues/${app.appKey}:js:t/comments`, {
        token: user.token,
        body: { text: 'again' },
      });
      statuses.push(reply.status);
    }
    expect(statuses).toEqual([201, 201, 429]);
  });
});
