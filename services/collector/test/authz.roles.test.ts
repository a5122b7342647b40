// The authorization table of organizations: every object (organization, app, issue) x every action on it x every
// kind of caller (owner, admin, member, stranger, a read-only org token, a releases-only org token as CI holds, a
// revoked token), through HTTP on the real server; Sentry's /api/0/ paths (releases) answer its `{ detail }`. Not a member: 404, as for what does not exist; a role or scope short: 403; a revoked token: 401.
import { describe, expect, it } from 'vitest';
import { makeEvent, type Reply, sendBatch, signUp, startTestServer, type TestServer } from './harness';

const server: TestServer = await startTestServer({ alerts: { allowPrivateNetworks: true } });
const call = (method: string, path: string, token: string, body?: unknown) =>
  server.call(method, path, { token, body });
const ok = (reply: Reply, status: number, what: string) => {
  if (reply.status !== status) throw new Error(`${what}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
};

const owner = await signUp(server);
const org = ok(await call('POST', '/api/orgs', owner.token, { name: 'Table' }), 201, 'org').org;
async function join(role: string) {
  const person = await signUp(server);
  const invited = ok(
    await call('POST', `/api/orgs/${org.slug}/invitations`, owner.token, { email: person.email, role }),
    201,
    'invite',
  );
  const token = invited.invitation.url.split('/').pop();
  ok(await call('POST', '/api/invitations/accept', person.token, { token }), 200, 'accept');
  return person;
}
const admin = await join('admin');
const member = await join('member');
// Whose role the table changes: a member of its own, so that the others keep theirs.
const target = await join('member');
const stranger = await signUp(server);
const orgToken = async (scopes: string[]) =>
  ok(await call('POST', '/api/tokens', owner.token, { name: 'table', scopes, org: org.slug }), 201, 'token').token;
const readToken = (await orgToken(['read'])).value as string;
const releasesToken = (await orgToken(['releases'])).value as string;
const revoked = await orgToken(['read', 'write', 'releases']);
ok(await call('DELETE', `/api/tokens/${revoked.id}`, owner.token), 204, 'revoke');

const app = ok(
  await call('POST', '/api/apps', owner.token, { name: 'Shop', type: 'web', org: org.slug }),
  201,
  'app',
).app;
await sendBatch(server, app.appKey, [makeEvent({ fingerprint: 'js:table' })]);
const issue = `${app.appKey}:js:table`;
const webhook = { trigger: 'new_issue', channel: { type: 'webhook', url: 'http://127.0.0.1:9/hook' } };
const newAlert = async () =>
  ok(await call('POST', `/api/apps/${app.appKey}/alerts`, owner.token, webhook), 201, 'alert').alert.id;
const releases = `/api/0/organizations/${org.slug}/releases/`;
const newRelease = async () => {
  const version = `table@${Math.random()}`;
  ok(await call('POST', releases, owner.token, { version, projects: [app.slug] }), 201, 'release');
  return version;
};
const newInvitation = async () =>
  ok(
    await call('POST', `/api/orgs/${org.slug}/invitations`, owner.token, {
      email: `x-${Math.random()}@example.com`,
      role: 'member',
    }),
    201,
    'invitation',
  ).invitation.id;

/**
 * What an action takes: read (any member, a read token), triage (any member; a token with write), admin (owner or
 * admin, write), audit (owner or admin; read is the scope), person (owner or admin, and a person: no token),
 * releases (any member; a token with scope releases: what sentry-cli does, reads included).
 */
type Need = 'read' | 'triage' | 'admin' | 'audit' | 'person' | 'releases';

interface Action {
  object: 'org' | 'app' | 'issue' | 'release';
  name: string;
  need: Need;
  status: number;
  /** The request, made fresh for each caller (an alert or invitation to delete each time). */
  request: () => Promise<{ method: string; path: string; body?: unknown }>;
}

const get = (path: string) => async () => ({ method: 'GET', path });
const actions: Action[] = [
  { object: 'org', name: 'list members', need: 'read', status: 200, request: get(`/api/orgs/${org.slug}/members`) },
  { object: 'org', name: 'list its apps', need: 'read', status: 200, request: get(`/api/apps?org=${org.slug}`) },
  {
    object: 'org',
    name: 'read its overview',
    need: 'read',
    status: 200,
    request: get(`/api/overview?org=${org.slug}`),
  },
  {
    object: 'org',
    name: 'read its outcomes',
    need: 'read',
    status: 200,
    request: get(`/api/outcomes?org=${org.slug}`),
  },
  { object: 'org', name: 'list its issues', need: 'read', status: 200, request: get(`/api/issues?org=${org.slug}`) },
  {
    object: 'org',
    name: 'read its audit log',
    need: 'audit',
    status: 200,
    request: get(`/api/orgs/${org.slug}/audit`),
  },
  {
    object: 'org',
    name: 'create an app',
    need: 'admin',
    status: 201,
    request: async () => ({ method: 'POST', path: '/api/apps', body: { name: 'New', type: 'web', org: org.slug } }),
  },
  {
    object: 'org',
    name: 'invite',
    need: 'admin',
    status: 201,
    request: async () => ({
      method: 'POST',
      path: `/api/orgs/${org.slug}/invitations`,
      body: { email: `y-${Math.random()}@example.com`, role: 'member' },
    }),
  },
  {
    object: 'org',
    name: 'revoke an invitation',
    need: 'admin',
    status: 204,
    request: async () => ({ method: 'DELETE', path: `/api/orgs/${org.slug}/invitations/${await newInvitation()}` }),
  },
  {
    object: 'org',
    name: 'change a role',
    need: 'admin',
    status: 200,
    request: async () => ({
      method: 'PATCH',
      path: `/api/orgs/${org.slug}/members/${target.user.id}`,
      body: { role: 'member' },
    }),
  },
  {
    object: 'org',
    name: 'create an org token',
    need: 'person',
    status: 201,
    request: async () => ({
      method: 'POST',
      path: '/api/tokens',
      body: { name: 'ci', scopes: ['read'], org: org.slug },
    }),
  },
  {
    object: 'app',
    name: 'read its overview',
    need: 'read',
    status: 200,
    request: get(`/api/overview?appKey=${app.appKey}`),
  },
  {
    object: 'app',
    name: 'read its timeseries',
    need: 'read',
    status: 200,
    request: get(`/api/overview/timeseries?appKey=${app.appKey}`),
  },
  {
    object: 'app',
    name: 'read its outcomes',
    need: 'read',
    status: 200,
    request: get(`/api/outcomes?appKey=${app.appKey}`),
  },
  {
    object: 'app',
    name: 'list its issues',
    need: 'read',
    status: 200,
    request: get(`/api/issues?appKey=${app.appKey}`),
  },
  { object: 'app', name: 'list its alerts', need: 'read', status: 200, request: get(`/api/apps/${app.appKey}/alerts`) },
  {
    object: 'app',
    name: 'list its deliveries',
    need: 'read',
    status: 200,
    request: get(`/api/apps/${app.appKey}/alerts/deliveries`),
  },
  {
    object: 'app',
    name: 'create an alert',
    need: 'admin',
    status: 201,
    request: async () => ({ method: 'POST', path: `/api/apps/${app.appKey}/alerts`, body: webhook }),
  },
  {
    object: 'app',
    name: 'delete an alert',
    need: 'admin',
    status: 204,
    request: async () => ({ method: 'DELETE', path: `/api/apps/${app.appKey}/alerts/${await newAlert()}` }),
  },
  {
    object: 'app',
    name: 'test an alert',
    need: 'admin',
    status: 200,
    request: async () => ({ method: 'POST', path: `/api/apps/${app.appKey}/alerts/${await newAlert()}/test` }),
  },
  {
    object: 'app',
    name: 'read its releases (dashboard)',
    need: 'read',
    status: 200,
    request: get(`/api/apps/${app.appKey}/releases`),
  },
  { object: 'release', name: 'list (sentry-cli)', need: 'releases', status: 200, request: get(releases) },
  {
    object: 'release',
    name: 'create',
    need: 'releases',
    status: 201,
    request: async () => ({
      method: 'POST',
      path: releases,
      body: { version: `table@${Math.random()}`, projects: [app.slug] },
    }),
  },
  {
    object: 'release',
    name: 'read one',
    need: 'releases',
    status: 200,
    request: async () => ({ method: 'GET', path: `${releases}${await newRelease()}/` }),
  },
  {
    object: 'release',
    name: 'finalize',
    need: 'releases',
    status: 200,
    request: async () => ({
      method: 'PUT',
      path: `${releases}${await newRelease()}/`,
      body: { dateReleased: '2026-11-26T00:00:00Z' },
    }),
  },
  {
    object: 'release',
    name: 'delete',
    need: 'releases',
    status: 204,
    request: async () => ({ method: 'DELETE', path: `${releases}${await newRelease()}/` }),
  },
  {
    object: 'release',
    name: 'record a deploy',
    need: 'releases',
    status: 201,
    request: async () => ({
      method: 'POST',
      path: `${releases}${await newRelease()}/deploys/`,
      body: { environment: 'production' },
    }),
  },
  { object: 'issue', name: 'read it', need: 'read', status: 200, request: get(`/api/issues/${issue}`) },
  {
    object: 'issue',
    name: 'read its activity',
    need: 'read',
    status: 200,
    request: get(`/api/issues/${issue}/activity`),
  },
  {
    object: 'issue',
    name: 'change its status',
    need: 'triage',
    status: 200,
    request: async () => ({ method: 'PATCH', path: `/api/issues/${issue}`, body: { status: 'unresolved' } }),
  },
  {
    object: 'issue',
    name: 'assign it',
    need: 'triage',
    status: 200,
    request: async () => ({ method: 'PATCH', path: `/api/issues/${issue}`, body: { assignee: member.user.id } }),
  },
  {
    object: 'issue',
    name: 'comment on it',
    need: 'triage',
    status: 201,
    request: async () => ({ method: 'POST', path: `/api/issues/${issue}/comments`, body: { text: 'seen it' } }),
  },
];

type Caller = 'owner' | 'admin' | 'member' | 'stranger' | 'read token' | 'releases token' | 'revoked token';
const tokens: Record<Caller, string> = {
  owner: owner.token,
  admin: admin.token,
  member: member.token,
  stranger: stranger.token,
  'read token': readToken,
  'releases token': releasesToken,
  'revoked token': revoked.value,
};

/** The answer the policy gives: success, 403 (role or scope short), 404 (not a member) or 401 (no valid token). */
function expected(caller: Caller, action: Action): number {
  if (caller === 'revoked token') return 401;
  if (caller === 'stranger') return 404;
  if (caller === 'owner' || caller === 'admin') return action.status;
  if (caller === 'member')
    return action.need === 'read' || action.need === 'triage' || action.need === 'releases' ? action.status : 403;
  // A CI's org token: an admin of its organization narrowed to releases, and no person.
  if (caller === 'releases token') return action.need === 'releases' ? action.status : 403;
  // A read-only org token: an admin of its organization narrowed to reading, and no person.
  return action.need === 'read' || action.need === 'audit' ? action.status : 403;
}

const callers = Object.keys(tokens) as Caller[];
describe.each(actions.map((action) => [`${action.object}: ${action.name}`, action] as const))('%s', (_name, action) => {
  it.each(callers)('as %s', async (caller) => {
    const request = await action.request();
    const reply = await call(request.method, request.path, tokens[caller], request.body);
    const want = expected(caller, action);
    expect(reply.status, JSON.stringify(reply.body)).toBe(want);
    if (want >= 400 && request.path.startsWith('/api/0/')) {
      expect(reply.body).toEqual({ detail: expect.any(String) });
      return;
    }
    if (want === 403) expect(reply.body.error.code).toBe('FORBIDDEN');
    if (want === 404) expect(reply.body.error.code).toBe('NOT_FOUND');
    if (want === 401) expect(reply.body.error.code).toBe('UNAUTHENTICATED');
  });
});
