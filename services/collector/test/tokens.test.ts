// API tokens through HTTP: Sentry's formats, scopes, organization tokens that outlive their creator, revocation,
// expiry, lastUsedAt, and the real sentry-cli reaching the collector with nothing but SENTRY_AUTH_TOKEN.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import SentryCli from '@sentry/cli';
import { describe, expect, it } from 'vitest';
import { createApp, makeEvent, sendBatch, signUp, startTestServer } from './harness';

let now = Date.now();
const server = await startTestServer({ clock: () => now });
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const call = (method: string, path: string, token: string | undefined, body?: unknown) =>
  server.call(method, path, { token, body });

async function newToken(token: string, body: Record<string, unknown>) {
  const reply = await call('POST', '/api/tokens', token, { name: 'ci', scopes: ['read'], ...body });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.token as { id: string; value: string; org: string | null; lastUsedAt: number | null };
}

/** An organization with an owner, an admin and an app with one issue. */
async function team() {
  const owner = await signUp(server);
  const org = (await call('POST', '/api/orgs', owner.token, { name: 'Acme' })).body.org;
  const app = (await call('POST', '/api/apps', owner.token, { name: 'Shop', type: 'web', org: org.slug })).body.app;
  await sendBatch(server, app.appKey, [makeEvent({ fingerprint: 'js:team' })]);
  const admin = await signUp(server);
  const invitation = await call('POST', `/api/orgs/${org.slug}/invitations`, owner.token, {
    email: admin.email,
    role: 'admin',
  });
  const link = invitation.body.invitation.url.split('/').pop();
  expect((await call('POST', '/api/invitations/accept', admin.token, { token: link })).status).toBe(200);
  return { owner, admin, org, app, issue: `${app.appKey}:js:team` };
}

describe('user tokens', () => {
  it('are sntryu_ and 64 hex, shown once, stored as SHA-256, and act as their user within their scopes', async () => {
    const user = await signUp(server);
    const app = await createApp(server, user.token);
    await sendBatch(server, app.appKey, [makeEvent({ fingerprint: 'js:mine' })]);
    const token = await newToken(user.token, { scopes: ['read'] });
    expect(token).toEqual({
      id: expect.stringMatching(/^tok_/),
      name: 'ci',
      scopes: ['read'],
      org: null,
      createdAt: now,
      lastUsedAt: null,
      expiresAt: null,
      value: expect.stringMatching(/^sntryu_[0-9a-f]{64}$/),
    });
    const stored = await server.database.db
      .selectFrom('api_tokens')
      .selectAll()
      .where('id', '=', token.id)
      .executeTakeFirstOrThrow();
    expect(stored.hash).toBe(sha256(token.value));
    expect(JSON.stringify(stored)).not.toContain(token.value.slice(7));
    const listed = await call('GET', '/api/tokens', user.token);
    const { value: _shownOnce, ...withoutValue } = token;
    expect(listed.body.tokens).toEqual([withoutValue]);

    expect((await call('GET', '/api/auth/me', token.value)).body.user.id).toBe(user.user.id);
    expect((await call('GET', `/api/issues?appKey=${app.appKey}`, token.value)).body.total).toBe(1);
    // read only: no triage, no apps, no tokens.
    const triage = await call('PATCH', `/api/issues/${app.appKey}:js:mine`, token.value, { status: 'resolved' });
    expect(triage.status).toBe(403);
    expect(triage.body.error.code).toBe('FORBIDDEN');
    expect((await call('POST', '/api/apps', token.value, { name: 'X', type: 'web' })).status).toBe(403);
    expect((await call('POST', '/api/tokens', token.value, { name: 'more', scopes: ['read'] })).status).toBe(403);
    // A token is not a session: it ends by revocation, not logout.
    expect((await call('POST', '/api/auth/logout', token.value)).status).toBe(403);
    const writer = await newToken(user.token, { scopes: ['read', 'write'] });
    expect(
      (await call('PATCH', `/api/issues/${app.appKey}:js:mine`, writer.value, { status: 'resolved' })).status,
    ).toBe(200);
  });

  it('are refused once revoked or expired, and only their user can revoke them', async () => {
    const user = await signUp(server);
    const stranger = await signUp(server);
    const token = await newToken(user.token, {});
    expect((await call('DELETE', `/api/tokens/${token.id}`, stranger.token)).status).toBe(404);
    expect((await call('GET', '/api/apps', token.value)).status).toBe(200);
    expect((await call('DELETE', `/api/tokens/${token.id}`, user.token)).status).toBe(204);
    const revoked = await call('GET', '/api/apps', token.value);
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.code).toBe('UNAUTHENTICATED');

    const past = await call('POST', '/api/tokens', user.token, { name: 'old', scopes: ['read'], expiresAt: now - 1 });
    expect(past.status).toBe(400);
    const expiring = await newToken(user.token, { expiresAt: now + 60_000 });
    expect((await call('GET', '/api/apps', expiring.value)).status).toBe(200);
    now += 60_000;
    expect((await call('GET', '/api/apps', expiring.value)).status).toBe(401);
    for (const body of [{ scopes: [] }, { scopes: ['admin'] }, { scopes: ['read', 'read'] }, { name: '' }]) {
      expect((await call('POST', '/api/tokens', user.token, { name: 'x', scopes: ['read'], ...body })).status).toBe(
        400,
      );
    }
  });

  it('write lastUsedAt at most once a minute', async () => {
    const user = await signUp(server);
    const token = await newToken(user.token, {});
    const lastUsed = async () =>
      (await call('GET', '/api/tokens', user.token)).body.tokens.find((each: { id: string }) => each.id === token.id)
        .lastUsedAt;
    const first = now;
    await call('GET', '/api/apps', token.value);
    expect(await lastUsed()).toBe(first);
    now += 30_000;
    await call('GET', '/api/apps', token.value);
    expect(await lastUsed()).toBe(first);
    now += 31_000;
    await call('GET', '/api/apps', token.value);
    expect(await lastUsed()).toBe(now);
  });
});

describe('organization tokens', () => {
  it('carry the URL and org in Sentry’s format, and only owners and admins make them', async () => {
    const { owner, admin, org } = await team();
    const member = await signUp(server);
    const token = await newToken(admin.token, { org: org.slug, scopes: ['read', 'releases'] });
    const parts = token.value.split('_');
    expect(parts).toHaveLength(3);
    expect(parts[0]).toBe('sntrys');
    expect(parts[1]).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    expect(JSON.parse(Buffer.from(parts[1] as string, 'base64').toString())).toEqual({
      iat: Math.floor(now / 1000),
      url: new URL(server.url).origin,
      region_url: new URL(server.url).origin,
      org: org.slug,
    });
    expect(parts[2]).toMatch(/^[A-Za-z0-9+/]{43}$/);
    // Not a member of the organization: 404; a member: 403.
    expect(
      (await call('POST', '/api/tokens', member.token, { name: 'x', scopes: ['read'], org: org.slug })).status,
    ).toBe(404);
    const invitation = await call('POST', `/api/orgs/${org.slug}/invitations`, owner.token, {
      email: member.email,
      role: 'member',
    });
    const link = invitation.body.invitation.url.split('/').pop();
    await call('POST', '/api/invitations/accept', member.token, { token: link });
    expect(
      (await call('POST', '/api/tokens', member.token, { name: 'x', scopes: ['read'], org: org.slug })).status,
    ).toBe(403);
  });

  it('belong to the organization: they see only it, outlive their creator, and any owner or admin revokes them', async () => {
    const { owner, admin, org, app, issue } = await team();
    const other = await createApp(server, owner.token, { name: 'Elsewhere' });
    const token = await newToken(admin.token, { org: org.slug, scopes: ['read', 'write'] });
    expect(
      (await call('GET', '/api/apps', token.value)).body.apps.map((each: { appKey: string }) => each.appKey),
    ).toEqual([app.appKey]);
    expect((await call('GET', `/api/issues?appKey=${other.appKey}`, token.value)).status).toBe(404);
    expect((await call('GET', '/api/auth/me', token.value)).status).toBe(403);
    // The admin leaves; the organization's token keeps working.
    expect((await call('DELETE', `/api/orgs/${org.slug}/members/${admin.user.id}`, owner.token)).status).toBe(204);
    expect((await call('PATCH', `/api/issues/${issue}`, token.value, { status: 'resolved' })).status).toBe(200);
    const listed = await call('GET', '/api/tokens', owner.token);
    expect(listed.body.tokens.map((each: { id: string }) => each.id)).toContain(token.id);
    expect((await call('DELETE', `/api/tokens/${token.id}`, owner.token)).status).toBe(204);
    expect((await call('GET', '/api/apps', token.value)).status).toBe(401);
    const audit = await call('GET', `/api/orgs/${org.slug}/audit`, owner.token);
    expect(audit.body.entries.slice(0, 2).map((entry: { action: string }) => entry.action)).toEqual([
      'token.revoke',
      'member.remove',
    ]);
  });

  it('cannot be made with a path in PUBLIC_URL: sentry-cli works only at a host’s root', async () => {
    const behindPath = await startTestServer({ publicUrl: 'https://example.com/collector' });
    const user = await signUp(behindPath);
    const [org] = (await behindPath.call('GET', '/api/orgs', { token: user.token })).body.orgs;
    const reply = await behindPath.call('POST', '/api/tokens', {
      token: user.token,
      body: { name: 'ci', scopes: ['releases'], org: org.slug },
    });
    expect(reply.status).toBe(409);
    expect(reply.body.error.code).toBe('CONFLICT');
  });
});

describe('Sentry’s API and sentry-cli', () => {
  it('answers GET /api/0/ and the organization’s paths with Sentry’s shapes and errors', async () => {
    const { admin, org } = await team();
    const token = await newToken(admin.token, { org: org.slug, scopes: ['read', 'releases'] });
    const info = await call('GET', '/api/0/', token.value);
    expect(info.status).toBe(200);
    expect(info.body).toEqual({
      version: '0',
      auth: { scopes: expect.arrayContaining(['org:read', 'project:releases']) },
      user: null,
    });
    expect((await call('GET', '/api/0/', admin.token)).body.user).toMatchObject({ email: admin.email });
    const anonymous = await call('GET', '/api/0/', undefined);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ detail: expect.any(String) });
    expect((await call('GET', `/api/0/organizations/${org.slug}/`, token.value)).body).toMatchObject({
      slug: org.slug,
    });
    const elsewhere = await call('GET', '/api/0/organizations/not-this-one/', token.value);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body).toEqual({ detail: expect.any(String) });
    expect((await call('GET', '/api/0/no/such/path/', token.value)).body).toEqual({ detail: expect.any(String) });
  });

  it('sentry-cli with only SENTRY_AUTH_TOKEN reaches the collector, authenticates, and reads the token’s organization', async () => {
    const { admin, org } = await team();
    const token = await newToken(admin.token, { org: org.slug, scopes: ['read', 'releases'] });
    // The binary of the npm package's platform package (@sentry/cli-linux-x64 and the like), as the bundler plugins run it.
    const cli = SentryCli.getPath();
    // A clean environment: no SENTRY_URL, no SENTRY_ORG, no config file; the token says where and which org.
    const env = { PATH: process.env.PATH ?? '', HOME: '/nonexistent', SENTRY_AUTH_TOKEN: token.value };
    const run = promisify(execFile);
    const info = await run(cli, ['info'], { env });
    expect(info.stdout).toContain(`Sentry Server: ${new URL(server.url).origin}`);
    expect(info.stdout).toMatch(/Method: Auth Token[\s\S]*org:read/);
    // `info` prints its configured defaults, not the token's; the organization shows in what it reads with it.
    const projects = await run(cli, ['projects', 'list'], { env });
    expect(projects.stdout).toMatch(/\|\s+shop\s+\|/);
  });
});
