import { describe, expect, it } from 'vitest';
import { createApp, expectValidationFailed, makeEvent, sendBatch, signUp, startTestServer } from './harness';

const server = await startTestServer();
const { token } = await signUp(server);
const { appKey } = await createApp(server, token);
await sendBatch(server, appKey, [makeEvent({ fingerprint: 'js:one' })]);

describe('query strings are parsed strictly', () => {
  it.each([
    ['/api/issues?limit=', 'limit'],
    ['/api/issues?limit=abc', 'limit'],
    ['/api/issues?limit=0', 'limit'],
    ['/api/issues?limit=101', 'limit'],
    ['/api/issues?limit=1.5', 'limit'],
    ['/api/issues?limit=-1', 'limit'],
    ['/api/issues?limit=1e2', 'limit'],
    ['/api/issues?limit=5&limit=6', 'limit'],
    ['/api/issues?appKey=', 'appKey'],
    ['/api/issues?cursor=', 'cursor'],
    ['/api/overview?from=', 'from'],
    ['/api/overview?from=yesterday', 'from'],
    ['/api/overview?to=false', 'to'],
    ['/api/overview?from=10&to=5', 'to'],
    ['/api/issues/x:y:z?limit=0', 'limit'],
    // Only a canonical integer becomes a number: leading zeros, signs, spaces, hex, fractions stay text and fail.
    ['/api/issues?limit=01', 'limit'],
    ['/api/issues?limit=+5', 'limit'],
    ['/api/issues?limit=%205', 'limit'],
    ['/api/issues?limit=0x10', 'limit'],
    ['/api/issues?limit=5.0', 'limit'],
    ['/api/issues/x:y:z?limit=abc', 'limit'],
    ['/api/overview?from=-0', 'from'],
    ['/api/overview?from=-1', 'from'],
    ['/api/overview?from=9007199254740993', 'from'],
    ['/api/overview/timeseries?to=1.5', 'to'],
    ['/api/overview/timeseries?from=', 'from'],
  ])('%s is a 400 naming %s', async (path, field) => {
    expectValidationFailed(await server.call('GET', path, { token }), field);
  });

  it('rejects a cursor this service did not issue', async () => {
    for (const cursor of [
      'garbage',
      Buffer.from('[1,2]').toString('base64url'),
      Buffer.from('{"a":1}').toString('base64url'),
    ]) {
      expectValidationFailed(await server.call('GET', `/api/issues?cursor=${cursor}`, { token }), 'cursor');
    }
  });

  it('takes canonical integers at the bounds', async () => {
    expect((await server.call('GET', '/api/issues?limit=1', { token })).status).toBe(200);
    expect((await server.call('GET', '/api/issues?limit=100', { token })).status).toBe(200);
    expect((await server.call('GET', `/api/overview?from=0&to=${Date.now()}`, { token })).body.totals.events).toBe(1);
  });

  it('ignores unknown query parameters', async () => {
    expect((await server.call('GET', '/api/issues?colour=blue', { token })).status).toBe(200);
  });
});

describe('not found', () => {
  it('answers 404 for an unknown app on overview and issues', async () => {
    for (const path of [
      '/api/overview?appKey=web_nosuchapp000000000000',
      '/api/issues?appKey=web_nosuchapp000000000000',
    ]) {
      const reply = await server.call('GET', path, { token });
      expect(reply.status).toBe(404);
      expect(reply.body.error.code).toBe('NOT_FOUND');
    }
  });

  it.each([[`${'web_nosuchapp000000000000'}:js:one`], ['no-colon-at-all'], ['only:one-colon'], ['%E0%A4%A']])(
    'answers 404 for issue id %s',
    async (id) => {
      const reply = await server.call('GET', `/api/issues/${id}`, { token });
      expect(reply.status).toBe(404);
      expect(reply.body.error.code).toBe('NOT_FOUND');
    },
  );

  it('answers 404 for an unknown fingerprint in one’s own app', async () => {
    expect((await server.call('GET', `/api/issues/${appKey}:js:other`, { token })).status).toBe(404);
  });
});
