// The issue list's search syntax (GET /api/issues?q=) through HTTP, on issues made by ingestion: every kind of term,
// alone, together, and with the list's own parameters.
import { describe, expect, it } from 'vitest';
import { makeEvent, sendBatch, signUp, startTestServer } from './harness';

const server = await startTestServer();
const call = (method: string, path: string, token: string, body?: unknown) =>
  server.call(method, path, { token, body });

// An organization with an owner, a colleague and one app.
const owner = await signUp(server);
const org = (await call('POST', '/api/orgs', owner.token, { name: 'Search' })).body.org;
const app = (await call('POST', '/api/apps', owner.token, { name: 'Shop', type: 'web', org: org.slug })).body.app;
const colleague = await signUp(server);
const invitation = await call('POST', `/api/orgs/${org.slug}/invitations`, owner.token, {
  email: colleague.email,
  role: 'member',
});
await call('POST', '/api/invitations/accept', colleague.token, {
  token: invitation.body.invitation.url.split('/').pop(),
});

// a: error, 1.0 in production, tags tier gold and page /cart; assigned to the owner.
// b: warning, 1.1 in staging, tags tier silver and page "/deals/100%_off"; resolved, assigned to the colleague.
// c: fatal, 2.0-beta, a tag named level; ignored.
// d: info, "Cart: total missing", no tags.
const t = Date.now() - 60_000;
const sent = await sendBatch(server, app.appKey, [
  makeEvent({
    fingerprint: 'js:a',
    timestamp: t,
    level: 'error',
    release: '1.0',
    environment: 'production',
    tags: { tier: 'gold', page: '/cart' },
  }),
  makeEvent({
    fingerprint: 'js:b',
    timestamp: t + 1,
    level: 'warning',
    release: '1.1',
    environment: 'staging',
    tags: { tier: 'silver', page: '/deals/100%_off' },
  }),
  makeEvent({
    fingerprint: 'js:c',
    timestamp: t + 2,
    level: 'fatal',
    release: '2.0-beta',
    message: 'cart failed',
    tags: { level: 'high', page: '/deals/100x off' },
  }),
  makeEvent({ fingerprint: 'js:d', timestamp: t + 3, level: 'info', message: 'Cart: total missing' }),
]);
expect(sent.status).toBe(200);
const issue = (name: string) => `${app.appKey}:js:${name}`;
expect((await call('PATCH', `/api/issues/${issue('a')}`, owner.token, { assignee: owner.user.id })).status).toBe(200);
expect((await call('PATCH', `/api/issues/${issue('b')}`, owner.token, { assignee: colleague.user.id })).status).toBe(
  200,
);
expect((await call('PATCH', `/api/issues/${issue('b')}`, owner.token, { status: 'resolved' })).status).toBe(200);
expect((await call('PATCH', `/api/issues/${issue('c')}`, owner.token, { status: 'ignored' })).status).toBe(200);

/** The issues that q finds in the app by fingerprint (`a` for js:a), sorted; `extra` adds the list's own parameters. */
async function found(q: string, token = owner.token, extra = ''): Promise<string[]> {
  const reply = await call('GET', `/api/issues?appKey=${app.appKey}&q=${encodeURIComponent(q)}${extra}`, token);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(reply.body.total).toBe(reply.body.issues.length);
  return reply.body.issues
    .map((each: { id: string }) => each.id.slice(`${app.appKey}:`.length).replace(/^js:/, ''))
    .sort();
}

describe('search terms', () => {
  it('is: statuses (archived as ignored) and assignment, and their negation', async () => {
    expect(await found('is:unresolved')).toEqual(['a', 'd']);
    expect(await found('is:resolved')).toEqual(['b']);
    expect(await found('is:ignored')).toEqual(['c']);
    expect(await found('is:archived')).toEqual(['c']);
    expect(await found('is:assigned')).toEqual(['a', 'b']);
    expect(await found('is:unassigned')).toEqual(['c', 'd']);
    expect(await found('is:unresolved is:unassigned')).toEqual(['d']);
    expect(await found('!is:unresolved')).toEqual(['b', 'c']);
  });

  it('assigned: me (whoever asks), none, and a member by e-mail', async () => {
    expect(await found('assigned:me')).toEqual(['a']);
    expect(await found('assigned:me', colleague.token)).toEqual(['b']);
    expect(await found('assigned:none')).toEqual(['c', 'd']);
    expect(await found(`assigned:${colleague.email}`)).toEqual(['b']);
    expect(await found(`assigned:${colleague.email.toUpperCase()}`)).toEqual(['b']);
    expect(await found('assigned:nobody@example.com')).toEqual([]);
    expect(await found('!assigned:me')).toEqual(['b', 'c', 'd']);
  });

  it('level:, one or a list, and negated', async () => {
    expect(await found('level:fatal')).toEqual(['c']);
    expect(await found('level:[error,warning]')).toEqual(['a', 'b']);
    expect(await found('!level:error')).toEqual(['b', 'c', 'd']);
  });

  it('release: and environment:, exact, with wildcards, negated, and has:', async () => {
    expect(await found('release:1.1')).toEqual(['b']);
    expect(await found('release:1.*')).toEqual(['a', 'b']);
    expect(await found('release:"2.0-beta"')).toEqual(['c']);
    expect(await found('environment:production')).toEqual(['a']);
    expect(await found('!environment:production')).toEqual(['b', 'c', 'd']);
    expect(await found('has:environment')).toEqual(['a', 'b']);
  });

  it('free text, alone and mixed with terms', async () => {
    expect(await found('FAILED')).toEqual(['c']);
    expect(await found('missing level:info')).toEqual(['d']);
    expect(await found('missing level:fatal')).toEqual([]);
    expect(await found('level:fatal cart failed')).toEqual(['c']);
    expect(await found('"cart: total"')).toEqual(['d']);
  });

  it('ANDs terms with the list’s parameters, and an empty search finds everything', async () => {
    expect(await found('is:resolved', owner.token, '&status=unresolved')).toEqual([]);
    expect(await found('is:unresolved', owner.token, '&status=unresolved,ignored')).toEqual(['a', 'd']);
    expect(await found('release:1.*', owner.token, '&release=1.1')).toEqual(['b']);
    expect(await found('level:error', owner.token, '&assignee=none')).toEqual([]);
    expect(await found('   ')).toEqual(['a', 'b', 'c', 'd']);
  });

  it('pages a search like any filter', async () => {
    const first = await call(
      'GET',
      `/api/issues?appKey=${app.appKey}&limit=1&q=${encodeURIComponent('release:1.*')}`,
      owner.token,
    );
    expect(first.body).toMatchObject({ total: 2, issues: [{ id: issue('b') }] });
    const second = await call(
      'GET',
      `/api/issues?appKey=${app.appKey}&limit=1&q=${encodeURIComponent('release:1.*')}&cursor=${first.body.nextCursor}`,
      owner.token,
    );
    expect(second.body).toMatchObject({ total: 2, issues: [{ id: issue('a') }], nextCursor: null });
  });
});

// These read the tag facets (tag:<key>) that the write path keeps from each event's tags: they pass once it does.
describe('tag terms (needs the write path’s tag facets)', () => {
  it('key:value, quoted, listed and with wildcards', async () => {
    expect(await found('tier:gold')).toEqual(['a']);
    expect(await found('tier:Gold')).toEqual([]);
    expect(await found('tier:[gold,silver]')).toEqual(['a', 'b']);
    expect(await found('page:/deals/*')).toEqual(['b', 'c']);
    expect(await found('page:"/deals/100x off"')).toEqual(['c']);
    // %, _ and \ in a value are themselves, not LIKE's.
    expect(await found('page:*100%_off')).toEqual(['b']);
    expect(await found('page:*100_*')).toEqual([]);
  });

  it('has:, negation, tags[key] for a tag named like a built-in key, and terms together', async () => {
    expect(await found('has:tier')).toEqual(['a', 'b']);
    expect(await found('!has:tier')).toEqual(['c', 'd']);
    expect(await found('!tier:gold')).toEqual(['b', 'c', 'd']);
    expect(await found('tags[level]:high')).toEqual(['c']);
    expect(await found('tags[level]:high level:fatal')).toEqual(['c']);
    expect(await found('is:unresolved has:page !tier:silver')).toEqual(['a']);
  });
});

describe('handled terms (needs the write path’s handled facet)', () => {
  it('handled:, error.handled: and error.unhandled: from Sentry’s mechanism.handled', async () => {
    const { projectId, publicKey } = (() => {
      const url = new URL(app.dsn);
      return { projectId: url.pathname.split('/').at(-1) as string, publicKey: url.username };
    })();
    const sentryEvent = (id: string, type: string, handled: boolean) => ({
      event_id: id.padEnd(32, '0'),
      timestamp: (Date.now() - 1000) / 1000,
      platform: 'node',
      level: 'error',
      exception: {
        values: [{ type, value: `${type} happened`, mechanism: { type: 'generic', handled } }],
      },
    });
    for (const [id, type, handled] of [
      ['aa', 'CrashError', false],
      ['bb', 'CaughtError', true],
    ] as const) {
      const reply = await server.call('POST', `/api/${projectId}/store/?sentry_key=${publicKey}`, {
        body: sentryEvent(id, type, handled),
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    }
    const crash = await found('handled:no CrashError');
    expect(crash).toHaveLength(1);
    expect(await found('error.unhandled:true CrashError')).toEqual(crash);
    expect(await found('error.handled:false CrashError')).toEqual(crash);
    expect(await found('handled:no CaughtError')).toEqual([]);
    const caught = await found('handled:yes CaughtError');
    expect(caught).toHaveLength(1);
    expect(await found('error.handled:true CaughtError')).toEqual(caught);
    expect(await found('!error.unhandled:true CaughtError')).toEqual(caught);
    expect(await found('!handled:no CrashError')).toEqual([]);
  });
});
