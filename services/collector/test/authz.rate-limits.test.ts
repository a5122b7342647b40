// Rate limits, beyond what auth.security and ingest.security already show: Retry-After tells the truth (waiting
// that long is enough), an e-mail's budget cannot be dodged by spelling it differently, and one client address or
// app running out leaves the others alone.
import { testDatabaseUrl } from '@collector/db/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger';
import { startServer } from '../src/server';
import { createApp, makeEvents, PASSWORD, sendBatch, signUp, startTestServer, uniqueEmail } from './harness';

let now = Date.now();
const clock = () => now;

function expectRateLimited(reply: { status: number; headers: Headers; body: any }) {
  expect(reply.status).toBe(429);
  expect(reply.body).toEqual({ error: { code: 'RATE_LIMITED', message: expect.any(String) } });
  expect(reply.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
  return Number(reply.headers.get('retry-after'));
}

describe('ingestion limit per appKey', () => {
  it('accepts the batch again once Retry-After seconds have passed, and not a second before', async () => {
    const server = await startTestServer({ rateLimits: { ingestPerSecond: 1, ingestBurst: 60 }, clock });
    const { token } = await signUp(server);
    const { appKey } = await createApp(server, token);
    const other = await signUp(server);
    const otherApp = await createApp(server, other.token);

    expect((await sendBatch(server, appKey, makeEvents(50))).status).toBe(200);
    const batch = makeEvents(20);
    const wait = expectRateLimited(await sendBatch(server, appKey, batch));
    // 10 tokens left, 20 needed, 1 a second.
    expect(wait).toBe(10);
    // Another user's app is not slowed down.
    expect((await sendBatch(server, otherApp.appKey, makeEvents(50))).status).toBe(200);

    now += (wait - 1) * 1000;
    expectRateLimited(await sendBatch(server, appKey, batch));
    now += 1000;
    const accepted = await sendBatch(server, appKey, batch);
    expect(accepted.status).toBe(200);
    expect(accepted.body.accepted).toBe(20);
    expect((await server.call('GET', `/api/overview?appKey=${appKey}`, { token })).body.totals.events).toBe(70);
  });
});

describe('sign-in limit per e-mail', () => {
  it('counts every spelling of one e-mail against one budget, and lets the right password in after Retry-After', async () => {
    const server = await startTestServer({ rateLimits: { authPerEmail: { ratePerSecond: 1 / 60, burst: 3 } }, clock });
    const { email } = await signUp(server);
    const spellings = [email, email.toUpperCase(), ` ${email} `, `\t${email[0]?.toUpperCase()}${email.slice(1)}`];
    for (const spelling of spellings.slice(0, 3)) {
      expect(
        (await server.call('POST', '/api/auth/login', { body: { email: spelling, password: 'wrong password!' } }))
          .status,
      ).toBe(401);
    }
    const wait = expectRateLimited(
      await server.call('POST', '/api/auth/login', { body: { email: spellings[3], password: PASSWORD } }),
    );
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    // Another account is unaffected meanwhile.
    const other = await signUp(server);
    expect(
      (await server.call('POST', '/api/auth/login', { body: { email: other.email, password: PASSWORD } })).status,
    ).toBe(200);

    now += (wait - 1) * 1000;
    expectRateLimited(await server.call('POST', '/api/auth/login', { body: { email, password: PASSWORD } }));
    now += 1000;
    expect((await server.call('POST', '/api/auth/login', { body: { email, password: PASSWORD } })).status).toBe(200);
  });
});

// Behind a proxy (TRUST_PROXY), X-Forwarded-For is the client: the only way a test can be several clients.
const server = await startServer({
  port: 0,
  host: '127.0.0.1',
  databaseUrl: await testDatabaseUrl(),
  trustProxy: 'loopback',
  clock,
  rateLimits: {
    ingestPerSecond: 0,
    authPerEmail: { ratePerSecond: 1000, burst: 1000 },
    authPerAddress: { ratePerSecond: 1 / 2, burst: 3 },
  },
  logger: createLogger('silent'),
});
afterAll(() => server.stop());
const post = async (path: string, body: unknown, address: string) => {
  const response = await fetch(`${server.url.replace('localhost', '127.0.0.1')}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
};

describe('sign-in and registration limit per client address', () => {
  it('throttles one address with 429 and Retry-After, leaving other addresses and their users alone', async () => {
    const email = uniqueEmail();
    expect((await post('/api/auth/register', { email, password: PASSWORD }, '203.0.113.7')).status).toBe(201);
    expect((await post('/api/auth/login', { email, password: 'wrong password!' }, '203.0.113.7')).status).toBe(401);
    expect((await post('/api/auth/login', { email: uniqueEmail(), password: PASSWORD }, '203.0.113.7')).status).toBe(
      401,
    );
    const wait = expectRateLimited(
      await post('/api/auth/register', { email: uniqueEmail(), password: PASSWORD }, '203.0.113.7'),
    );
    expectRateLimited(await post('/api/auth/login', { email, password: PASSWORD }, '203.0.113.7'));

    // The same account, from another address, is not locked out by what the first one did.
    expect((await post('/api/auth/login', { email, password: PASSWORD }, '198.51.100.9')).status).toBe(200);
    expect(
      (await post('/api/auth/register', { email: uniqueEmail(), password: PASSWORD }, '198.51.100.9')).status,
    ).toBe(201);

    now += wait * 1000;
    expect((await post('/api/auth/login', { email, password: PASSWORD }, '203.0.113.7')).status).toBe(200);
  });
});
