// Organizations, members and roles, invitations, registration modes, the audit log and password resets, through HTTP
// on the real server, with a real SMTP server started here for the e-mails.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { deleteExpiredLinks } from '@collector/db';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createApp,
  freshDatabase,
  makeEvent,
  PASSWORD,
  sendBatch,
  signUp,
  startTestServer,
  type TestServer,
  uniqueEmail,
} from './harness';

const received: ParsedMail[] = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  onData(stream, _session, callback) {
    simpleParser(stream).then(
      (mail) => {
        received.push(mail);
        callback();
      },
      (error: Error) => callback(error),
    );
  },
});
smtp.listen(0, '127.0.0.1');
await once(smtp.server, 'listening');
afterAll(() => new Promise<void>((resolve) => smtp.close(() => resolve())));
const smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;

const DAY = 24 * 60 * 60 * 1000;
let now = Date.now();
const PUBLIC_URL = 'https://errors.example.com';
const server = await startTestServer({ clock: () => now, publicUrl: PUBLIC_URL, alerts: { smtpUrl } });

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

async function mailTo(address: string): Promise<ParsedMail> {
  for (let i = 0; i < 100; i++) {
    const mail = received.find((each) => each.to && JSON.stringify(each.to).includes(address));
    if (mail) return mail;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no mail to ${address}`);
}

const call = (method: string, path: string, token: string | undefined, body?: unknown) =>
  server.call(method, path, { token, body });

async function newOrg(token: string, name = 'Acme') {
  const reply = await call('POST', '/api/orgs', token, { name });
  expect(reply.status).toBe(201);
  return reply.body.org as { slug: string; name: string; role: string };
}

/** A person who joined `slug` with `role` through an invitation. */
async function joined(inviter: string, slug: string, role: string, target: TestServer = server) {
  const person = await signUp(target);
  const invitation = await target.call('POST', `/api/orgs/${slug}/invitations`, {
    token: inviter,
    body: { email: person.email, role },
  });
  expect(invitation.status).toBe(201);
  const token = new URL(invitation.body.invitation.url).pathname.split('/').pop();
  const accepted = await target.call('POST', '/api/invitations/accept', { token: person.token, body: { token } });
  expect(accepted.status).toBe(200);
  return person;
}

describe('organizations', () => {
  it('gives every new account an organization of its own, which it owns', async () => {
    const { token, email } = await signUp(server);
    const reply = await call('GET', '/api/orgs', token);
    expect(reply.status).toBe(200);
    expect(reply.body.orgs).toEqual([
      { slug: expect.stringMatching(/^user-[0-9a-f-]+$/), name: email, role: 'owner', createdAt: now },
    ]);
  });

  it('creates organizations with slugs from their names, and refuses a slug in use with 409', async () => {
    const { token } = await signUp(server);
    const name = `Team ${Math.random().toString(36).slice(2, 8)}`;
    const first = await newOrg(token, name);
    expect(first).toMatchObject({ slug: name.toLowerCase().replace(' ', '-'), name, role: 'owner' });
    expect((await newOrg(token, name)).slug).toBe(`${first.slug}-2`);
    const taken = await call('POST', '/api/orgs', token, { name, slug: first.slug });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('CONFLICT');
    for (const slug of ['-x', 'A', '123', 'a'.repeat(51)]) {
      expect((await call('POST', '/api/orgs', token, { name, slug })).status, slug).toBe(400);
    }
    expect((await call('GET', '/api/orgs', token)).body.orgs).toHaveLength(3);
  });

  it('gives apps slugs unique in their organization, never all digits, and filters by org', async () => {
    const { token } = await signUp(server);
    const org = await newOrg(token);
    const apps = [];
    for (const name of ['Shop', 'Shop', '12345']) {
      const reply = await call('POST', '/api/apps', token, { name, type: 'web', org: org.slug });
      expect(reply.status).toBe(201);
      apps.push(reply.body.app);
    }
    expect(apps.map((app) => [app.slug, app.org])).toEqual([
      ['shop', org.slug],
      ['shop-2', org.slug],
      ['app-12345', org.slug],
    ]);
    const own = await createApp(server, token, { name: 'Shop' });
    expect(own.slug).toBe('shop');
    expect((await call('GET', '/api/apps', token)).body.apps).toHaveLength(4);
    expect(
      (await call('GET', `/api/apps?org=${org.slug}`, token)).body.apps.map((app: { appKey: string }) => app.appKey),
    ).toEqual(apps.map((app) => app.appKey).sort()); // made in one millisecond: appKey order
    expect((await call('POST', '/api/apps', token, { name: 'X', type: 'web', org: 'no-such-org' })).status).toBe(404);
  });

  it('counts the overview over one organization: org, else the caller’s own', async () => {
    const { token } = await signUp(server);
    const own = await createApp(server, token);
    const org = await newOrg(token);
    const team = (await call('POST', '/api/apps', token, { name: 'Team app', type: 'web', org: org.slug })).body.app;
    await sendBatch(server, own.appKey, [makeEvent({ anonymousId: 'anon_1' })]);
    await sendBatch(server, team.appKey, [makeEvent({ anonymousId: 'anon_2' }), makeEvent({ anonymousId: 'anon_3' })]);
    expect((await call('GET', '/api/overview', token)).body.totals).toMatchObject({ events: 1, affectedUsers: 1 });
    expect((await call('GET', `/api/overview?org=${org.slug}`, token)).body.totals).toMatchObject({
      events: 2,
      affectedUsers: 2,
    });
    const outcomes = await call('GET', `/api/outcomes?org=${org.slug}`, token);
    expect(outcomes.body.outcomes.find((each: { reason: string }) => each.reason === 'accepted').events).toBe(2);
    // Issues cover every organization of the caller; org narrows.
    expect((await call('GET', '/api/issues', token)).body.total).toBe(2);
    expect((await call('GET', `/api/issues?org=${org.slug}`, token)).body.total).toBe(1);
  });

  it('counts an id seen in apps that different members made once, all time and over a window', async () => {
    const owner = await signUp(server);
    const org = await newOrg(owner.token, 'Shared');
    const admin = await joined(owner.token, org.slug, 'admin');
    const mine = (await call('POST', '/api/apps', owner.token, { name: 'Web', type: 'web', org: org.slug })).body.app;
    const theirs = (await call('POST', '/api/apps', admin.token, { name: 'API', type: 'web', org: org.slug })).body.app;
    await sendBatch(server, mine.appKey, [makeEvent({ anonymousId: 'anon_both', timestamp: now - 3 * 3_600_000 })]);
    await sendBatch(server, theirs.appKey, [
      makeEvent({ anonymousId: 'anon_both', timestamp: now - 2 * 3_600_000 }),
      makeEvent({ anonymousId: 'anon_api', timestamp: now - 2 * 3_600_000 }),
    ]);
    expect((await call('GET', `/api/overview?org=${org.slug}`, owner.token)).body.totals).toMatchObject({
      events: 3,
      affectedUsers: 2,
    });
    const window = `from=${now - 5 * 3_600_000}&to=${now}`;
    expect((await call('GET', `/api/overview?org=${org.slug}&${window}`, admin.token)).body.totals).toMatchObject({
      events: 3,
      affectedUsers: 2,
    });
  });
});

describe('members and invitations', () => {
  it('invites by link and e-mail; the link works once, for that e-mail, and is stored hashed', async () => {
    const owner = await signUp(server);
    const org = await newOrg(owner.token);
    const app = (await call('POST', '/api/apps', owner.token, { name: 'Shop', type: 'web', org: org.slug })).body.app;
    await sendBatch(server, app.appKey, [makeEvent({ fingerprint: 'js:team' })]);
    const email = uniqueEmail();
    const reply = await call('POST', `/api/orgs/${org.slug}/invitations`, owner.token, {
      email: email.toUpperCase(),
      role: 'member',
    });
    expect(reply.status).toBe(201);
    const { invitation } = reply.body;
    expect(invitation).toEqual({
      id: expect.stringMatching(/^inv_/),
      email,
      role: 'member',
      expiresAt: now + 7 * DAY,
      url: expect.stringMatching(new RegExp(`^${PUBLIC_URL}/invitations/[a-z0-9]{37}$`)),
    });
    const token = invitation.url.split('/').pop();
    const stored = await server.database.db
      .selectFrom('invitations')
      .selectAll()
      .where('id', '=', invitation.id)
      .executeTakeFirstOrThrow();
    expect(stored.hash).toBe(sha256(token));
    expect(JSON.stringify(stored)).not.toContain(token);
    expect((await mailTo(email)).text).toContain(invitation.url);

    const stranger = await signUp(server);
    const wrong = await call('POST', '/api/invitations/accept', stranger.token, { token });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error.code).toBe('FORBIDDEN');

    const invited = await signUp(server, email);
    // Not yet a member: the organization's app is unknown to them.
    expect((await call('GET', `/api/issues?appKey=${app.appKey}`, invited.token)).status).toBe(404);
    const accepted = await call('POST', '/api/invitations/accept', invited.token, { token });
    expect(accepted.status).toBe(200);
    expect(accepted.body.org).toMatchObject({ slug: org.slug, role: 'member' });
    expect((await call('POST', '/api/invitations/accept', invited.token, { token })).status).toBe(404);
    const issues = await call('GET', `/api/issues?org=${org.slug}`, invited.token);
    expect(issues.body.issues.map((issue: { fingerprint: string }) => issue.fingerprint)).toEqual(['js:team']);

    const members = await call('GET', `/api/orgs/${org.slug}/members`, owner.token);
    // Oldest first; members who joined in the same millisecond come in user id order.
    expect(members.body.members).toEqual(
      [
        { userId: owner.user.id, email: owner.email, role: 'owner', joinedAt: now },
        { userId: invited.user.id, email, role: 'member', joinedAt: now },
      ].sort((a, b) => a.userId.localeCompare(b.userId)),
    );
    // A member sees the members, not the pending invitations.
    const pending = await call('POST', `/api/orgs/${org.slug}/invitations`, owner.token, {
      email: uniqueEmail(),
      role: 'admin',
    });
    expect((await call('GET', `/api/orgs/${org.slug}/members`, owner.token)).body.invitations).toHaveLength(1);
    expect((await call('GET', `/api/orgs/${org.slug}/members`, invited.token)).body.invitations).toEqual([]);
    expect(pending.status).toBe(201);
  });

  it('refuses revoked and expired invitations with 404', async () => {
    const owner = await signUp(server);
    const org = await newOrg(owner.token);
    const person = await signUp(server);
    const invite = async () => {
      const reply = await call('POST', `/api/orgs/${org.slug}/invitations`, owner.token, {
        email: person.email,
        role: 'member',
      });
      return { id: reply.body.invitation.id as string, token: reply.body.invitation.url.split('/').pop() as string };
    };
    const revoked = await invite();
    expect((await call('DELETE', `/api/orgs/${org.slug}/invitations/${revoked.id}`, owner.token)).status).toBe(204);
    expect((await call('POST', '/api/invitations/accept', person.token, { token: revoked.token })).status).toBe(404);
    const expired = await invite();
    now += 7 * DAY + 1;
    try {
      expect((await call('POST', '/api/invitations/accept', person.token, { token: expired.token })).status).toBe(404);
      // The hourly retention run deletes what has expired.
      await deleteExpiredLinks(server.database.db, now);
      const left = await server.database.db
        .selectFrom('invitations')
        .select('id')
        .where('id', '=', expired.id)
        .execute();
      expect(left).toEqual([]);
    } finally {
      now -= 7 * DAY + 1;
    }
    expect((await call('POST', '/api/invitations/accept', person.token, { token: 'x'.repeat(37) })).status).toBe(404);
  });

  it('lets owners and admins manage members by role, keeps the last owner, and removal takes effect at once', async () => {
    const owner = await signUp(server);
    const org = await newOrg(owner.token);
    const app = (await call('POST', '/api/apps', owner.token, { name: 'Shop', type: 'web', org: org.slug })).body.app;
    const member = await joined(owner.token, org.slug, 'member');
    const admin = await joined(owner.token, org.slug, 'admin');
    const path = (userId: string) => `/api/orgs/${org.slug}/members/${userId}`;

    // A member reads, but manages nothing.
    expect((await call('GET', `/api/apps?org=${org.slug}`, member.token)).body.apps).toHaveLength(1);
    expect((await call('PATCH', path(admin.user.id), member.token, { role: 'member' })).status).toBe(403);
    expect(
      (await call('POST', `/api/orgs/${org.slug}/invitations`, member.token, { email: uniqueEmail(), role: 'member' }))
        .status,
    ).toBe(403);
    expect((await call('POST', '/api/apps', member.token, { name: 'X', type: 'web', org: org.slug })).status).toBe(403);
    // An admin manages members and apps, but not owners.
    expect((await call('POST', '/api/apps', admin.token, { name: 'X', type: 'web', org: org.slug })).status).toBe(201);
    expect(
      (await call('POST', `/api/orgs/${org.slug}/invitations`, admin.token, { email: uniqueEmail(), role: 'owner' }))
        .status,
    ).toBe(403);
    expect((await call('PATCH', path(owner.user.id), admin.token, { role: 'member' })).status).toBe(403);
    expect((await call('DELETE', path(owner.user.id), admin.token)).status).toBe(403);
    const promoted = await call('PATCH', path(member.user.id), admin.token, { role: 'admin' });
    expect(promoted.status).toBe(200);
    expect(promoted.body.member).toMatchObject({ userId: member.user.id, role: 'admin' });
    expect((await call('PATCH', path(member.user.id), admin.token, { role: 'member' })).status).toBe(200);

    // The last owner can be neither demoted nor removed.
    const lastOwner = await call('PATCH', path(owner.user.id), owner.token, { role: 'admin' });
    expect(lastOwner.status).toBe(409);
    expect(lastOwner.body.error.code).toBe('CONFLICT');
    expect((await call('DELETE', path(owner.user.id), owner.token)).status).toBe(409);
    expect((await call('PATCH', path('user_nobody'), owner.token, { role: 'admin' })).status).toBe(404);
    expect((await call('PATCH', path(member.user.id), owner.token, { role: 'boss' })).status).toBe(400);

    // Removed: the next request no longer sees the organization.
    expect((await call('GET', `/api/issues?appKey=${app.appKey}`, member.token)).status).toBe(200);
    expect((await call('DELETE', path(member.user.id), admin.token)).status).toBe(204);
    expect((await call('GET', `/api/issues?appKey=${app.appKey}`, member.token)).status).toBe(404);
    expect((await call('GET', `/api/orgs/${org.slug}/members`, member.token)).status).toBe(404);
    // Anyone may leave.
    expect((await call('DELETE', path(admin.user.id), admin.token)).status).toBe(204);
    expect((await call('GET', `/api/apps?org=${org.slug}`, admin.token)).status).toBe(404);
  });

  it('keeps an audit log for owners and admins, newest first, in pages', async () => {
    const owner = await signUp(server);
    const org = await newOrg(owner.token);
    const member = await joined(owner.token, org.slug, 'member');
    await call('POST', '/api/apps', owner.token, { name: 'Shop', type: 'web', org: org.slug });
    await call('PATCH', `/api/orgs/${org.slug}/members/${member.user.id}`, owner.token, { role: 'admin' });
    const reply = await call('GET', `/api/orgs/${org.slug}/audit?limit=2`, owner.token);
    expect(reply.status).toBe(200);
    expect(reply.body.entries).toEqual([
      { action: 'member.role', actor: owner.email, target: `${member.user.id}: member -> admin`, at: now },
      { action: 'app.create', actor: owner.email, target: 'shop', at: now },
    ]);
    const next = await call('GET', `/api/orgs/${org.slug}/audit?cursor=${reply.body.nextCursor}`, owner.token);
    expect(next.body.entries.map((entry: { action: string }) => entry.action)).toEqual([
      'member.join',
      'invitation.create',
      'org.create',
    ]);
    expect(next.body.nextCursor).toBeNull();
    await call('PATCH', `/api/orgs/${org.slug}/members/${member.user.id}`, owner.token, { role: 'member' });
    expect((await call('GET', `/api/orgs/${org.slug}/audit`, member.token)).status).toBe(403);
  });
});

describe('registration modes', () => {
  it('invite: the first user registers, then only holders of an invitation', async () => {
    const invite = await startTestServer({ database: await freshDatabase(), registration: 'invite' });
    const first = await signUp(invite);
    const refused = await invite.call('POST', '/api/auth/register', {
      body: { email: uniqueEmail(), password: PASSWORD },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    const [org] = (await invite.call('GET', '/api/orgs', { token: first.token })).body.orgs;
    const email = uniqueEmail();
    const invitation = await invite.call('POST', `/api/orgs/${org.slug}/invitations`, {
      token: first.token,
      body: { email, role: 'member' },
    });
    const token = invitation.body.invitation.url.split('/').pop();
    // Another e-mail cannot use it.
    const other = await invite.call('POST', '/api/auth/register', {
      body: { email: uniqueEmail(), password: PASSWORD, invitation: token },
    });
    expect(other.status).toBe(403);
    const registered = await invite.call('POST', '/api/auth/register', {
      body: { email, password: PASSWORD, invitation: token },
    });
    expect(registered.status).toBe(201);
    const orgs = await invite.call('GET', '/api/orgs', { token: registered.body.token });
    expect(orgs.body.orgs.map((each: { slug: string; role: string }) => [each.slug, each.role])).toContainEqual([
      org.slug,
      'member',
    ]);
  });

  it('closed: only the very first user', async () => {
    const closed = await startTestServer({ database: await freshDatabase(), registration: 'closed' });
    await signUp(closed);
    const refused = await closed.call('POST', '/api/auth/register', {
      body: { email: uniqueEmail(), password: PASSWORD },
    });
    expect(refused.status).toBe(403);
  });
});

describe('password reset', () => {
  it('answers 202 whatever the e-mail, mails a link that works once, and ends every session', async () => {
    const user = await signUp(server);
    const unknown = uniqueEmail();
    for (const email of [user.email, unknown]) {
      const reply = await call('POST', '/api/auth/password-reset', undefined, { email });
      expect(reply.status).toBe(202);
      expect(reply.body).toEqual({ accepted: true });
    }
    const link = /https:\/\/errors\.example\.com\/reset-password\/([a-z0-9]{37})/.exec(
      (await mailTo(user.email)).text ?? '',
    );
    expect(link).not.toBeNull();
    const token = link?.[1] as string;
    const password = 'a brand new passphrase';
    expect(
      (await call('POST', '/api/auth/password-reset/confirm', undefined, { token, password: 'password' })).status,
    ).toBe(400);
    expect((await call('POST', '/api/auth/password-reset/confirm', undefined, { token, password })).status).toBe(204);
    expect((await call('GET', '/api/auth/me', user.token)).status).toBe(401);
    expect((await call('POST', '/api/auth/login', undefined, { email: user.email, password })).status).toBe(200);
    expect((await call('POST', '/api/auth/login', undefined, { email: user.email, password: PASSWORD })).status).toBe(
      401,
    );
    expect((await call('POST', '/api/auth/password-reset/confirm', undefined, { token, password })).status).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(received.some((mail) => JSON.stringify(mail.to).includes(unknown))).toBe(false);
  });

  it('is throttled per e-mail and address', async () => {
    const throttled = await startTestServer({ rateLimits: { actionsPerUser: { ratePerSecond: 1 / 60, burst: 2 } } });
    const email = uniqueEmail();
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await throttled.call('POST', '/api/auth/password-reset', { body: { email } })).status);
    expect(statuses).toEqual([202, 202, 429]);
  });

  it('pnpm reset-link prints a link for a collector without SMTP', async () => {
    const database = await freshDatabase();
    const plain = await startTestServer({ database });
    const user = await signUp(plain);
    const script = fileURLToPath(new URL('../src/reset-link.ts', import.meta.url));
    const tsx = fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url));
    const { stdout } = await promisify(execFile)(tsx, [script, user.email], {
      env: { ...process.env, DATABASE_URL: database.url, PUBLIC_URL },
    });
    const token = new RegExp(`^${PUBLIC_URL}/reset-password/([a-z0-9]{37})\\n$`).exec(stdout)?.[1];
    expect(token).toBeDefined();
    const confirmed = await plain.call('POST', '/api/auth/password-reset/confirm', {
      body: { token, password: 'another fine passphrase' },
    });
    expect(confirmed.status).toBe(204);
  });
});
