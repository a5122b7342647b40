import { describe, expect, it } from 'vitest';
import { createApp, makeEvent, makeEvents, sendBatch, sendRawBatch, signUp, startTestServer } from './harness';

describe('ingestion, security', () => {
  it('needs no Authorization header and ignores one', async () => {
    const server = await startTestServer();
    const { token } = await signUp(server);
    const { appKey } = await createApp(server, token);
    const reply = await server.call('POST', '/api/events/batch', {
      body: { appKey, events: [makeEvent()] },
      headers: { authorization: 'Bearer garbage' },
    });
    expect(reply.status).toBe(200);
  });

  it('keeps an event inside the app of the batch: an event claiming another appKey is rejected', async () => {
    const server = await startTestServer();
    const alice = await signUp(server);
    const bob = await signUp(server);
    const aliceApp = await createApp(server, alice.token);
    const bobApp = await createApp(server, bob.token);
    const reply = await sendBatch(server, aliceApp.appKey, [makeEvent({ appKey: bobApp.appKey })]);
    expect(reply.body.accepted).toBe(0);
    expect(
      (await server.call('GET', `/api/overview?appKey=${bobApp.appKey}`, { token: bob.token })).body.totals.events,
    ).toBe(0);
  });

  it('rate-limits per appKey with 429 and Retry-After, leaving other apps alone', async () => {
    const server = await startTestServer({ rateLimits: { ingestPerSecond: 1, ingestBurst: 60 } });
    const { token } = await signUp(server);
    const limited = await createApp(server, token);
    const other = await createApp(server, token);
    expect((await sendBatch(server, limited.appKey, makeEvents(50))).status).toBe(200);
    const refused = await sendBatch(server, limited.appKey, makeEvents(20));
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect((await sendBatch(server, other.appKey, [makeEvent()])).status).toBe(200);
    // Nothing of the refused batch was stored.
    expect((await server.call('GET', `/api/overview?appKey=${limited.appKey}`, { token })).body.totals.events).toBe(50);
  });

  it('does not let __proto__ keys pollute objects', async () => {
    const server = await startTestServer();
    const { token } = await signUp(server);
    const { appKey } = await createApp(server, token);
    const event = makeEvent({ fingerprint: 'js:proto' });
    const raw = JSON.stringify({
      appKey,
      __proto__: { polluted: true },
      events: [
        {
          ...event,
          constructor: { prototype: { polluted: true } },
          breadcrumbs: [{ data: JSON.parse('{"__proto__":{"polluted":true}}') }],
        },
      ],
    });
    const reply = await sendRawBatch(server, raw.replace('"appKey"', '"__proto__":{"polluted":true},"appKey"'));
    expect(reply.status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });
});
