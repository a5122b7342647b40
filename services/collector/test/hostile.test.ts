// Input that once produced a 500 or stalled the process: each case is a regression test.
import { describe, expect, it } from 'vitest';
import { backend, createApp, makeEvent, PASSWORD, sendBatch, sendRawBatch, signUp, startTestServer } from './harness';

const server = await startTestServer();
const { token, email } = await signUp(server);
const { appKey } = await createApp(server, token);

describe('text the database cannot store', () => {
  it('keeps an event with NUL bytes and lone surrogates, cleaned, and the rest of its batch', async () => {
    const reply = await sendRawBatch(
      server,
      `{"appKey":"${appKey}","events":[${JSON.stringify(makeEvent({ fingerprint: 'js:nul' })).replace('"message":"', '"message":"a\\u0000b\\ud800c')},${JSON.stringify(makeEvent())}]}`,
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ accepted: 2, duplicates: 0, rejected: [] });
    const [stored] = (await server.call('GET', `/api/issues/${appKey}:js:nul`, { token })).body.events;
    expect(stored.message.startsWith('ab\ufffdc')).toBe(true);
  });

  it.each([
    ['/api/issues?appKey=%00'],
    ['/api/overview?appKey=%00'],
    [`/api/issues/%00:a:b`],
    [`/api/issues/a:b:%00`],
    [`/api/issues?cursor=${Buffer.from(JSON.stringify([1, 'a\u0000', 'b'])).toString('base64url')}`],
  ])('answers 400 or 404, never 500, to %s', async (path) => {
    const reply = await server.call('GET', path, { token });
    expect([400, 404]).toContain(reply.status);
    expect(reply.body.error.code).toMatch(/^(VALIDATION_FAILED|NOT_FOUND)$/);
  });

  it.each([
    ['POST', '/api/auth/login', { email: 'a\u0000@b.com', password: 'whatever1' }],
    ['POST', '/api/auth/register', { email: 'a\u0000@b.com', password: PASSWORD }],
    ['POST', '/api/apps', { name: 'x\u0000y', type: 'web' }],
    ['POST', '/api/apps', { name: 'x\ud800y', type: 'web' }],
    ['POST', '/api/events/batch', { appKey: 'a\u0000b', events: [{}] }],
  ])('answers 400 VALIDATION_FAILED to %s %s with unstorable text', async (method, path, body) => {
    const reply = await server.call(method, path, { token, body });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('VALIDATION_FAILED');
  });
});

describe('deep nesting', () => {
  const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

  it('ignores a deeply nested unknown field in an auth body', async () => {
    const reply = await server.call('POST', '/api/auth/login', {
      rawBody: `{"email":"${email}","password":"${PASSWORD}","x":${deep(30_000)}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(reply.status).toBe(200);
  });

  it('rejects only the event that nests too deep, however deep', async () => {
    const good = makeEvent();
    const bad = JSON.stringify(makeEvent()).replace(
      '"breadcrumbs":[',
      `"breadcrumbs":[{"data":{"x":${deep(200_000)}}},`,
    );
    const reply = await sendRawBatch(server, `{"appKey":"${appKey}","events":[${JSON.stringify(good)},${bad}]}`);
    expect(reply.status).toBe(200);
    expect(reply.body.accepted).toBe(1);
    expect(reply.body.rejected).toEqual([
      expect.objectContaining({ index: 1, message: 'nested deeper than 16 levels' }),
    ]);
  });

  it('answers 400 to a batch whose events element is itself nested a million levels', async () => {
    const reply = await sendRawBatch(server, `{"appKey":"${appKey}","events":${deep(400_000)}}`);
    expect(reply.status).toBe(200);
    expect(reply.body.rejected[0].message).toMatch(/nested deeper|expected object/);
  });
});

describe('ingestion details', () => {
  it('keeps the first copy of an eventId repeated within a batch, as it does across batches', async () => {
    const first = makeEvent({ fingerprint: 'js:first', message: 'first copy', anonymousId: 'anon_first' });
    const second = { ...first, type: 'request', message: 'second copy', anonymousId: undefined };
    expect((await sendBatch(server, appKey, [first, second])).body).toEqual({
      accepted: 2,
      duplicates: 1,
      rejected: [],
    });
    const detail = await server.call('GET', `/api/issues/${appKey}:js:first`, { token });
    expect(detail.body.events.map((event: { message: string }) => event.message)).toEqual(['first copy']);
    expect(detail.body.issue.userCount).toBe(1);
  });

  it('replaces a negative or huge integer timestamp instead of rejecting the event', async () => {
    const reply = await sendBatch(server, appKey, [
      makeEvent({ timestamp: -1, fingerprint: 'js:ts' }),
      makeEvent({ timestamp: 1e20, fingerprint: 'js:ts' }),
    ]);
    expect(reply.body).toEqual({ accepted: 2, duplicates: 0, rejected: [] });
    const { events } = (await server.call('GET', `/api/issues/${appKey}:js:ts`, { token })).body;
    expect(events.map((event: { clientTimestamp: number }) => event.clientTimestamp).sort()).toEqual([-1, 1e20].sort());
  });

  it('lets successful logins through however many there are; failures are what is throttled', async () => {
    const throttled = await startTestServer({ rateLimits: { authPerEmail: { ratePerSecond: 1 / 60, burst: 3 } } });
    const account = await signUp(throttled);
    for (let i = 0; i < 6; i++)
      expect(
        (await throttled.call('POST', '/api/auth/login', { body: { email: account.email, password: PASSWORD } }))
          .status,
      ).toBe(200);
  });
});

describe.runIf(backend === 'postgres')('database faults (PostgreSQL)', () => {
  it('answers 503 and stays up when its connection is terminated in the middle of a query', async () => {
    const { sql } = await import('@collector/db');
    const db = server.database.db;
    const blocked = db.connection().execute(async (locker) => {
      await sql`begin`.execute(locker);
      await sql`lock table app_totals in access exclusive mode`.execute(locker);
      const ingest = sendBatch(server, appKey, [makeEvent()]);
      // Wait until the ingestion is waiting on the lock, then cut that backend's connection.
      for (let i = 0; i < 50; i++) {
        const { rows } = await sql<{
          n: number;
        }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(
          db,
        );
        if (rows[0]?.n) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(
        db,
      );
      await sql`rollback`.execute(locker);
      return ingest;
    });
    const reply = await blocked;
    expect(reply.status).toBe(503);
    expect(reply.body.error.code).toBe('UNAVAILABLE');
    expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await server.call('GET', '/healthz')).status).toBe(200);
    expect((await sendBatch(server, appKey, [makeEvent()])).status).toBe(200);
  });
});
