// Alert rules: what the routes refuse, with the contract's error body.
import { describe, expect, it } from 'vitest';
import { createApp, expectValidationFailed, signUp, startTestServer } from './harness';

// Private networks allowed here: these tests are about validation, alerts.security.test.ts about the guard.
const server = await startTestServer({ alerts: { allowPrivateNetworks: true } });
const owner = await signUp(server);
const stranger = await signUp(server);
const { appKey } = await createApp(server, owner.token);
const webhook = { type: 'webhook', url: 'http://127.0.0.1:9/hook' };

const create = (body: unknown, token = owner.token, key = appKey) =>
  server.call('POST', `/api/apps/${key}/alerts`, { token, body });

describe('creating an alert rule', () => {
  it.each([
    ['no trigger', { channel: webhook }, 'trigger'],
    ['an unknown trigger', { trigger: 'sometimes', channel: webhook }, 'trigger'],
    ['a spike without its numbers', { trigger: 'spike', channel: webhook }, 'spike'],
    ['spike events 0', { trigger: 'spike', spike: { events: 0, minutes: 5 }, channel: webhook }, 'spike.events'],
    ['spike minutes 0', { trigger: 'spike', spike: { events: 5, minutes: 0 }, channel: webhook }, 'spike.minutes'],
    [
      'spike minutes 1441',
      { trigger: 'spike', spike: { events: 5, minutes: 1441 }, channel: webhook },
      'spike.minutes',
    ],
    [
      'spike events as text',
      { trigger: 'spike', spike: { events: '5', minutes: 5 }, channel: webhook },
      'spike.events',
    ],
    ['fractional minutes', { trigger: 'spike', spike: { events: 5, minutes: 1.5 }, channel: webhook }, 'spike.minutes'],
    [
      'spike numbers on another trigger',
      { trigger: 'new_issue', spike: { events: 5, minutes: 5 }, channel: webhook },
      'spike',
    ],
    ['no channel', { trigger: 'new_issue' }, 'channel'],
    ['an unknown channel', { trigger: 'new_issue', channel: { type: 'pager', to: 'x' } }, 'channel.type'],
    ['an ftp URL', { trigger: 'new_issue', channel: { type: 'webhook', url: 'ftp://example.com/x' } }, 'channel.url'],
    ['a file URL', { trigger: 'new_issue', channel: { type: 'webhook', url: 'file:///etc/passwd' } }, 'channel.url'],
    ['no URL at all', { trigger: 'new_issue', channel: { type: 'webhook', url: 'hooks' } }, 'channel.url'],
    [
      'credentials in the URL',
      { trigger: 'new_issue', channel: { type: 'webhook', url: 'https://me:secret@example.com/' } },
      'channel.url',
    ],
    ['a bad e-mail address', { trigger: 'new_issue', channel: { type: 'email', to: 'ops' } }, 'channel.to'],
  ])('refuses %s (400)', async (_, body, path) => {
    const reply = await create(body);
    expectValidationFailed(reply, path);
  });

  it('refuses an e-mail alert when the collector has no SMTP_URL, and says so', async () => {
    const reply = await create({ trigger: 'new_issue', channel: { type: 'email', to: 'ops@example.com' } });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path: 'channel.type' }] });
    expect(reply.body.error.message).toMatch(/SMTP_URL/);
  });

  it('refuses JSON that is not JSON', async () => {
    const reply = await server.call('POST', `/api/apps/${appKey}/alerts`, {
      token: owner.token,
      rawBody: '{"trigger":',
      headers: { 'content-type': 'application/json' },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('INVALID_JSON');
  });
});

describe('another user’s app, an unknown app or rule', () => {
  it('is a 404 on every alert route, exactly like an app that does not exist', async () => {
    const created = await create({ trigger: 'new_issue', channel: webhook });
    expect(created.status).toBe(201);
    const id = created.body.alert.id;
    for (const key of [appKey, 'web_doesnotexist0000000000']) {
      const token = key === appKey ? stranger.token : owner.token;
      const replies = [
        await create({ trigger: 'new_issue', channel: webhook }, token, key),
        await server.call('GET', `/api/apps/${key}/alerts`, { token }),
        await server.call('GET', `/api/apps/${key}/alerts/deliveries`, { token }),
        await server.call('DELETE', `/api/apps/${key}/alerts/${id}`, { token }),
        await server.call('POST', `/api/apps/${key}/alerts/${id}/test`, { token }),
      ];
      for (const reply of replies) expect(reply.status, JSON.stringify(reply.body)).toBe(404);
      for (const reply of replies) expect(reply.body.error.code).toBe('NOT_FOUND');
    }
    // The stranger's attempts changed nothing.
    expect(
      (await server.call('GET', `/api/apps/${appKey}/alerts`, { token: owner.token })).body.alerts.map(
        (alert: { id: string }) => alert.id,
      ),
    ).toContain(id);
    expect(
      (await server.call('DELETE', `/api/apps/${appKey}/alerts/alert_unknown`, { token: owner.token })).status,
    ).toBe(404);
    expect(
      (await server.call('POST', `/api/apps/${appKey}/alerts/alert_unknown/test`, { token: owner.token })).status,
    ).toBe(404);
  });

  it('needs a session', async () => {
    const reply = await server.call('GET', `/api/apps/${appKey}/alerts`);
    expect(reply.status).toBe(401);
    expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });
});

describe('methods and strict query strings', () => {
  it('answers a wrong method with 405 and Allow', async () => {
    const reply = await server.call('PUT', `/api/apps/${appKey}/alerts`, { token: owner.token, body: {} });
    expect(reply.status).toBe(405);
    expect(reply.headers.get('allow')).toBe('GET, POST');
    const deliveries = await server.call('DELETE', `/api/apps/${appKey}/alerts/deliveries/x`, { token: owner.token });
    expect(deliveries.status).toBe(404);
  });

  it.each(['abc', '', '0', '101', '1.5'])('refuses deliveries?limit=%s', async (limit) => {
    const reply = await server.call('GET', `/api/apps/${appKey}/alerts/deliveries?limit=${limit}`, {
      token: owner.token,
    });
    expect(reply.status).toBe(400);
  });
});
