// Triage input that does not match the schema: 400 with the contract's body, never a default.
import { describe, expect, it } from 'vitest';
import { createApp, expectValidationFailed, makeEvent, sendBatch, signUp, startTestServer } from './harness';

const server = await startTestServer();
const { token } = await signUp(server);
const { appKey } = await createApp(server, token);
await sendBatch(server, appKey, [makeEvent({ fingerprint: 'js:one' }), makeEvent({ fingerprint: 'js:two' })]);
const id = `${appKey}:js:one`;

describe('issue list parameters', () => {
  it.each([
    ['status=', 'status'],
    ['status=open', 'status'],
    ['status=resolved,open', 'status'],
    ['status=resolved,', 'status'],
    ['status=RESOLVED', 'status'],
    ['status=resolved&status=ignored', 'status'],
    ['q=', 'q'],
    [`q=${'x'.repeat(201)}`, 'q'],
    ['type=', 'type'],
    ['type=crash', 'type'],
    ['release=', 'release'],
    [`release=${'r'.repeat(201)}`, 'release'],
    ['environment=', 'environment'],
    ['sort=', 'sort'],
    ['sort=newest', 'sort'],
    ['sort=lastseen', 'sort'],
    ['cursor=!!!', 'cursor'],
  ])('%s: 400', async (query, path) => {
    expectValidationFailed(await server.call('GET', `/api/issues?${query}`, { token }), path);
  });

  it('takes q of exactly 200 characters', async () => {
    expect((await server.call('GET', `/api/issues?q=${'x'.repeat(200)}`, { token })).status).toBe(200);
  });

  it('refuses a cursor made for another sort', async () => {
    const page = await server.call('GET', `/api/issues?appKey=${appKey}&limit=1&sort=events`, { token });
    expect(page.body.nextCursor).toEqual(expect.any(String));
    expectValidationFailed(
      await server.call('GET', `/api/issues?appKey=${appKey}&limit=1&sort=users&cursor=${page.body.nextCursor}`, {
        token,
      }),
      'cursor',
    );
    expectValidationFailed(
      await server.call('GET', `/api/issues?appKey=${appKey}&limit=1&cursor=${page.body.nextCursor}`, { token }),
      'cursor',
    );
    // An issue cursor is not an event cursor.
    expectValidationFailed(
      await server.call('GET', `/api/issues/${id}?cursor=${page.body.nextCursor}`, { token }),
      'cursor',
    );
  });

  it('refuses a garbage events cursor', async () => {
    expectValidationFailed(await server.call('GET', `/api/issues/${id}?cursor=abc`, { token }), 'cursor');
    expectValidationFailed(await server.call('GET', `/api/issues/${id}?cursor=`, { token }), 'cursor');
  });
});

describe('status changes', () => {
  it.each([
    [{}, 'status'],
    [{ status: 'open' }, 'status'],
    [{ status: 'Resolved' }, 'status'],
    [{ status: null }, 'status'],
    [{ status: 1 }, 'status'],
  ])('PATCH /api/issues/:id %j: 400', async (body, path) => {
    expectValidationFailed(await server.call('PATCH', `/api/issues/${id}`, { token, body }), path);
  });

  it.each([
    [{ status: 'resolved' }, 'ids'],
    [{ ids: [], status: 'resolved' }, 'ids'],
    [{ ids: Array.from({ length: 101 }, (_, i) => `${appKey}:js:${i}`), status: 'resolved' }, 'ids'],
    [{ ids: id, status: 'resolved' }, 'ids'],
    [{ ids: [''], status: 'resolved' }, 'ids.0'],
    [{ ids: [42], status: 'resolved' }, 'ids.0'],
    [{ ids: [id], status: 'done' }, 'status'],
    [{ ids: [id] }, 'status'],
  ])('PATCH /api/issues %j: 400', async (body, path) => {
    expectValidationFailed(await server.call('PATCH', '/api/issues', { token, body }), path);
  });

  it('takes 100 ids', async () => {
    const reply = await server.call('PATCH', '/api/issues', {
      token,
      body: { ids: Array.from({ length: 100 }, (_, i) => (i === 0 ? id : `${appKey}:js:${i}`)), status: 'ignored' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ updated: 1 });
  });

  it('answers an unknown issue with 404, bad JSON with 400, another content type with 415, another method with 405', async () => {
    const missing = await server.call('PATCH', `/api/issues/${appKey}:js:none`, {
      token,
      body: { status: 'resolved' },
    });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
    const badJson = await server.call('PATCH', `/api/issues/${id}`, {
      token,
      rawBody: '{"status":',
      headers: { 'content-type': 'application/json' },
    });
    expect(badJson.status).toBe(400);
    expect(badJson.body.error.code).toBe('INVALID_JSON');
    const text = await server.call('PATCH', '/api/issues', {
      token,
      rawBody: 'status=resolved',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    const put = await server.call('PUT', `/api/issues/${id}`, { token, body: { status: 'resolved' } });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, PATCH');
    const del = await server.call('DELETE', '/api/issues', { token });
    expect(del.status).toBe(405);
    expect(del.headers.get('allow')).toBe('GET, PATCH');
  });
});
