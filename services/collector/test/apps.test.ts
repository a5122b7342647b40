import { describe, expect, it } from 'vitest';
import { createApp, expectValidationFailed, signUp, startTestServer } from './harness';

const server = await startTestServer();

describe('apps, happy paths', () => {
  it('creates an app with 201 and an unguessable <type>_<id> key, and lists the caller’s apps oldest first', async () => {
    const { token } = await signUp(server);
    const [org] = (await server.call('GET', '/api/orgs', { token })).body.orgs;
    const first = await server.call('POST', '/api/apps', { token, body: { name: '  Shop  ', type: 'web' } });
    expect(first.status).toBe(201);
    expect(first.body.app).toEqual({
      appKey: expect.stringMatching(/^web_[a-z0-9]{20}$/),
      name: 'Shop',
      type: 'web',
      createdAt: expect.any(Number),
      dsn: expect.stringMatching(/^http:\/\/[0-9a-f]{32}@localhost:\d+\/\d+$/),
      // In the caller's own organization, with a slug from its name.
      slug: 'shop',
      org: org.slug,
    });
    const second = await createApp(server, token, { name: 'Mobile', type: 'react-native' });
    expect(second.appKey).toMatch(/^react-native_[a-z0-9]{20}$/);
    const list = await server.call('GET', '/api/apps', { token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ apps: [first.body.app, second] });
    // Without PUBLIC_URL the DSN names this server, on the port it listens on; each app its own key and project.
    expect(new URL(first.body.app.dsn).host).toBe(new URL(server.url).host);
    expect(new URL(second.dsn).username).not.toBe(new URL(first.body.app.dsn).username);
    expect(new URL(second.dsn).pathname).not.toBe(new URL(first.body.app.dsn).pathname);
  });

  it('takes every documented type', async () => {
    const { token } = await signUp(server);
    for (const type of ['web', 'node', 'ios', 'android', 'react-native', 'flutter', 'electron', 'other']) {
      expect((await server.call('POST', '/api/apps', { token, body: { name: type, type } })).status).toBe(201);
    }
  });

  it('gives a new user an empty list', async () => {
    const { token } = await signUp(server);
    expect((await server.call('GET', '/api/apps', { token })).body).toEqual({ apps: [] });
  });
});

describe('apps, errors', () => {
  it.each([
    ['an empty name', { name: '   ', type: 'web' }, 'name'],
    ['a name of 101 characters', { name: 'n'.repeat(101), type: 'web' }, 'name'],
    ['an unknown type', { name: 'Shop', type: 'desktop' }, 'type'],
    ['a missing type', { name: 'Shop' }, 'type'],
    ['a numeric name', { name: 12, type: 'web' }, 'name'],
  ])('answers 400 VALIDATION_FAILED for %s', async (_case, body, path) => {
    const { token } = await signUp(server);
    const reply = await server.call('POST', '/api/apps', { token, body });
    expectValidationFailed(reply, path);
  });
});

describe('apps, security', () => {
  it('needs a token to list or create', async () => {
    for (const [method, body] of [
      ['GET', undefined],
      ['POST', { name: 'x', type: 'web' }],
    ] as const) {
      const reply = await server.call(method, '/api/apps', { body });
      expect(reply.status).toBe(401);
      expect(reply.body.error.code).toBe('UNAUTHENTICATED');
    }
  });

  it('answers 401 before looking at an invalid body', async () => {
    const reply = await server.call('POST', '/api/apps', { body: { name: 7 } });
    expect(reply.status).toBe(401);
  });

  it('never lists another user’s apps', async () => {
    const alice = await signUp(server);
    const bob = await signUp(server);
    const aliceApp = await createApp(server, alice.token);
    const bobApps = (await server.call('GET', '/api/apps', { token: bob.token })).body.apps;
    expect(bobApps).toEqual([]);
    expect(JSON.stringify(bobApps)).not.toContain(aliceApp.appKey);
  });
});
