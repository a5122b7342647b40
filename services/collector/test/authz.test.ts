// The authorization matrix: every endpoint that needs a session x every kind of token, and ids one step from
// one's own. Rows: own token 200 (201, 204), another user's token 404 for the owner's app or issue, and
// no, garbage, expired or logged-out token 401 UNAUTHENTICATED.
import { describe, expect, it } from 'vitest';
import { createApp, makeEvent, PASSWORD, type Reply, sendBatch, signUp, startTestServer } from './harness';

const DAY = 24 * 60 * 60 * 1000;
const start = Date.now();
let now = start;
const server = await startTestServer({ clock: () => now });

// Signed up 31 days ago and never used since: expired now.
now = start - 31 * DAY;
const expired = await signUp(server);
now = start;
const owner = await signUp(server);
const stranger = await signUp(server);
const loggedOut = await signUp(server);
expect((await server.call('POST', '/api/auth/logout', { token: loggedOut.token })).status).toBe(204);

const ownerApp = await createApp(server, owner.token, { name: 'Owner shop' });
const strangerApp = await createApp(server, stranger.token, { name: 'Stranger shop' });
// Both users have an issue with the same fingerprint: ids differ only by appKey.
await sendBatch(server, ownerApp.appKey, [
  makeEvent({ fingerprint: 'js:shared', message: 'owner secret', anonymousId: 'anon_owner' }),
]);
await sendBatch(server, strangerApp.appKey, [
  makeEvent({ fingerprint: 'js:shared', message: 'stranger secret', anonymousId: 'anon_stranger' }),
]);
await sendBatch(server, strangerApp.appKey, [makeEvent({ fingerprint: 'js:strangeronly', message: 'stranger only' })]);

const ownerIssue = `${ownerApp.appKey}:js:shared`;
const ownerMarks = [ownerApp.appKey, 'owner secret', 'Owner shop', owner.user.id, owner.email, 'anon_owner'];
const strangerMarks = [
  strangerApp.appKey,
  'stranger secret',
  'Stranger shop',
  stranger.user.id,
  stranger.email,
  'anon_stranger',
];

interface Endpoint {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  ok: number;
  /** Another user's token: 404 for what is the owner's, 200 (their own view) for what is not scoped to an app. */
  foreign: number;
}

const endpoints: Endpoint[] = [
  { method: 'GET', path: '/api/auth/me', ok: 200, foreign: 200 },
  { method: 'GET', path: '/api/apps', ok: 200, foreign: 200 },
  { method: 'POST', path: '/api/apps', body: { name: 'Another', type: 'web' }, ok: 201, foreign: 201 },
  { method: 'GET', path: '/api/overview', ok: 200, foreign: 200 },
  { method: 'GET', path: `/api/overview?appKey=${ownerApp.appKey}`, ok: 200, foreign: 404 },
  { method: 'GET', path: '/api/overview/timeseries', ok: 200, foreign: 200 },
  { method: 'GET', path: `/api/overview/timeseries?appKey=${ownerApp.appKey}&bucket=day`, ok: 200, foreign: 404 },
  { method: 'GET', path: '/api/issues', ok: 200, foreign: 200 },
  { method: 'GET', path: `/api/issues?appKey=${ownerApp.appKey}`, ok: 200, foreign: 404 },
  { method: 'GET', path: `/api/issues/${ownerIssue}`, ok: 200, foreign: 404 },
  { method: 'GET', path: `/api/issues/${encodeURIComponent(ownerIssue)}`, ok: 200, foreign: 404 },
];

const invalidTokens: [string, string | undefined][] = [
  ['no token', undefined],
  ['garbage', 'garbage'],
  ['an empty secret', 'session_'],
  ['a well-formed unknown token', `session_${'x'.repeat(31)}`],
  ['an expired token', expired.token],
  ['a logged-out token', loggedOut.token],
];

const call = (endpoint: Endpoint, token: string | undefined) =>
  server.call(endpoint.method, endpoint.path, { token, body: endpoint.body });
const text = (reply: Reply) => JSON.stringify(reply.body);

/** Each endpoint with the name its cases go by: the owner's appKey left out, so that names are the same every run. */
const namedEndpoints = endpoints.map(
  (endpoint) => [`${endpoint.method} ${endpoint.path.replace(ownerApp.appKey, '<own appKey>')}`, endpoint] as const,
);

describe('authorization matrix', () => {
  it.each(namedEndpoints)('%s: own token', async (_name, endpoint) => {
    const reply = await call(endpoint, owner.token);
    expect(reply.status).toBe(endpoint.ok);
    expect(text(reply)).not.toMatch(
      new RegExp(strangerMarks.map((mark) => mark.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')),
    );
  });

  it.each(namedEndpoints)('%s: another user’s token sees nothing of the owner’s', async (_name, endpoint) => {
    const reply = await call(endpoint, stranger.token);
    expect(reply.status).toBe(endpoint.foreign);
    if (endpoint.foreign === 404)
      expect(reply.body).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
    for (const mark of ownerMarks) expect(text(reply), mark).not.toContain(mark);
  });

  it.each(
    namedEndpoints.flatMap(([path, endpoint]) =>
      invalidTokens.map(([name, token]) => [path, name, endpoint, token] as const),
    ),
  )('%s with %s: 401', async (_path, _name, endpoint, token) => {
    const reply = await call(endpoint, token);
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ error: { code: 'UNAUTHENTICATED', message: expect.any(String) } });
    expect(reply.headers.get('www-authenticate')).toBe('Bearer');
    for (const mark of ownerMarks) expect(text(reply)).not.toContain(mark);
  });

  it('logout: 204 with one’s own session (that session only), 401 with every invalid kind', async () => {
    const session = await server.call('POST', '/api/auth/login', { body: { email: owner.email, password: PASSWORD } });
    expect((await server.call('POST', '/api/auth/logout', { token: session.body.token })).status).toBe(204);
    expect((await server.call('GET', '/api/auth/me', { token: owner.token })).status).toBe(200);
    for (const [name, token] of invalidTokens) {
      const reply = await server.call('POST', '/api/auth/logout', { token });
      expect(reply.status, name).toBe(401);
      expect(reply.body.error.code).toBe('UNAUTHENTICATED');
    }
    // The expired session was refused, not revived by being presented.
    expect((await server.call('GET', '/api/auth/me', { token: expired.token })).status).toBe(401);
  });
});

describe('ids near one’s own', () => {
  const strangerIssue = `${strangerApp.appKey}:js:shared`;
  const [type, id] = ownerApp.appKey.split(/_(.*)/s) as [string, string];
  const nearAppKeys = [
    strangerApp.appKey,
    ownerApp.appKey.toUpperCase(),
    `${ownerApp.appKey}0`,
    ownerApp.appKey.slice(0, -1),
    ` ${ownerApp.appKey}`,
    `${type === 'web' ? 'node' : 'web'}_${id}`,
    // Every single-character change of the id part.
    ...[...id].map((char, i) => `${type}_${id.slice(0, i)}${char === 'a' ? 'b' : 'a'}${id.slice(i + 1)}`),
  ];

  it('gives 404 for appKeys one step from one’s own, exactly as for an unknown one', async () => {
    const unknown = await server.call('GET', '/api/overview?appKey=web_unknown', { token: owner.token });
    expect(unknown.status).toBe(404);
    for (const appKey of nearAppKeys) {
      for (const path of [
        `/api/overview?appKey=${encodeURIComponent(appKey)}`,
        `/api/issues?appKey=${encodeURIComponent(appKey)}`,
        `/api/overview/timeseries?appKey=${encodeURIComponent(appKey)}`,
      ]) {
        const reply = await server.call('GET', path, { token: owner.token });
        expect(reply.status, path).toBe(404);
        expect(reply.body).toEqual(unknown.body);
      }
    }
  });

  it('gives 404 for issue ids one step from one’s own, including the other user’s issue with the same fingerprint', async () => {
    const unknown = await server.call('GET', `/api/issues/${ownerApp.appKey}:js:nothing`, { token: owner.token });
    expect(unknown.status).toBe(404);
    const nearIssues = [
      strangerIssue,
      `${strangerApp.appKey}:js:strangeronly`,
      `${ownerApp.appKey}:js:strangeronly`,
      `${ownerApp.appKey}:js:Shared`,
      `${ownerApp.appKey}:js:shared0`,
      `${ownerApp.appKey}:js`,
      ...nearAppKeys.map((appKey) => `${appKey}:js:shared`),
    ];
    for (const issueId of nearIssues) {
      const reply = await server.call('GET', `/api/issues/${encodeURIComponent(issueId)}`, { token: owner.token });
      expect(reply.status, issueId).toBe(404);
      expect(reply.body).toEqual(unknown.body);
    }
    // The stranger sees their own issue, and the owner's id from their side is 404 too.
    expect((await server.call('GET', `/api/issues/${strangerIssue}`, { token: stranger.token })).status).toBe(200);
    expect((await server.call('GET', `/api/issues/${ownerIssue}`, { token: stranger.token })).status).toBe(404);
  });
});

describe('lists', () => {
  it('never contain another user’s apps, issues, events or users, page after page', async () => {
    // More of the stranger's data, so pages have something to leak.
    await sendBatch(
      server,
      strangerApp.appKey,
      Array.from({ length: 30 }, (_, i) => makeEvent({ fingerprint: `js:stranger${i}`, message: 'stranger secret' })),
    );
    for (const [user, marks] of [
      [owner, strangerMarks],
      [stranger, ownerMarks],
    ] as const) {
      const apps = await server.call('GET', '/api/apps', { token: user.token });
      const overview = await server.call('GET', '/api/overview', { token: user.token });
      const series = await server.call('GET', '/api/overview/timeseries?bucket=day', { token: user.token });
      let cursor: string | null = null;
      const pages: Reply[] = [];
      do {
        const page: Reply = await server.call(
          'GET',
          `/api/issues?limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          { token: user.token },
        );
        expect(page.status).toBe(200);
        pages.push(page);
        cursor = page.body.nextCursor;
      } while (cursor && pages.length < 50);
      for (const reply of [apps, overview, series, ...pages])
        for (const mark of marks) expect(text(reply)).not.toContain(mark);
      // Every issue listed, and its events, are the user's own.
      const ownKeys = new Set((apps.body.apps as { appKey: string }[]).map((app) => app.appKey));
      for (const page of pages)
        for (const issue of page.body.issues as { id: string; appKey: string }[]) {
          expect(ownKeys.has(issue.appKey)).toBe(true);
          const detail = await server.call('GET', `/api/issues/${encodeURIComponent(issue.id)}`, { token: user.token });
          for (const event of detail.body.events as { appKey: string }[]) expect(ownKeys.has(event.appKey)).toBe(true);
        }
    }
    // The owner's totals count only the owner's single event; the stranger's count theirs.
    expect((await server.call('GET', '/api/overview', { token: owner.token })).body.totals).toMatchObject({
      events: 1,
      issues: 1,
      affectedUsers: 1,
    });
    expect((await server.call('GET', '/api/overview', { token: stranger.token })).body.totals).toMatchObject({
      events: 32,
      issues: 32,
    });
  });
});
