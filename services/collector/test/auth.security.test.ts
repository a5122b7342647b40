import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PASSWORD, signUp, startTestServer, uniqueEmail } from './harness';

const DAY = 24 * 60 * 60 * 1000;
let now = Date.now();
const server = await startTestServer({ clock: () => now });

describe('auth, security', () => {
  it('stores only the SHA-256 of a token and an argon2id hash of the password', async () => {
    const { token, user } = await signUp(server);
    const sessions = await server.database.db
      .selectFrom('sessions')
      .selectAll()
      .where('user_id', '=', user.id)
      .execute();
    expect(sessions).toHaveLength(1);
    expect(sessions[0]?.id).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(sessions)).not.toContain(token.slice('session_'.length));
    // A password is one sign-in method, kept apart from the user.
    const row = await server.database.db
      .selectFrom('user_passwords')
      .select('hash')
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(row.hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(row.hash).not.toContain(PASSWORD);
  });

  it('slides the idle expiry with use and ends a session after 30 idle days', async () => {
    const { token } = await signUp(server);
    now += 29 * DAY;
    expect((await server.call('GET', '/api/auth/me', { token })).status).toBe(200);
    now += 29 * DAY; // 58 days after login, 29 since last use: still alive
    expect((await server.call('GET', '/api/auth/me', { token })).status).toBe(200);
    now += 30 * DAY + 1; // 30 idle days
    expect((await server.call('GET', '/api/auth/me', { token })).status).toBe(401);
  });

  it('ends a session 90 days after login however often it is used', async () => {
    const { token } = await signUp(server);
    for (let day = 0; day < 89; day += 10) {
      now += 10 * DAY;
      const expected = day + 10 < 90 ? 200 : 401;
      expect((await server.call('GET', '/api/auth/me', { token })).status, `day ${day + 10}`).toBe(expected);
    }
  });

  it('throttles login per e-mail with 429 and an integer Retry-After', async () => {
    const throttled = await startTestServer({ rateLimits: { authPerEmail: { ratePerSecond: 1 / 60, burst: 3 } } });
    const { email } = await signUp(throttled);
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof throttled.call>> | undefined;
    for (let i = 0; i < 5; i++) {
      last = await throttled.call('POST', '/api/auth/login', { body: { email, password: 'wrong password!' } });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    expect(last?.body.error.code).toBe('RATE_LIMITED');
    expect(Number(last?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(last?.headers.get('retry-after')).toMatch(/^\d+$/);
    // The right password is refused too while throttled; another e-mail is not affected.
    expect((await throttled.call('POST', '/api/auth/login', { body: { email, password: PASSWORD } })).status).toBe(429);
    const other = await signUp(throttled);
    expect(
      (await throttled.call('POST', '/api/auth/login', { body: { email: other.email, password: PASSWORD } })).status,
    ).toBe(200);
  });

  it('throttles register and login per client address', async () => {
    const throttled = await startTestServer({ rateLimits: { authPerAddress: { ratePerSecond: 1 / 60, burst: 2 } } });
    expect(
      (await throttled.call('POST', '/api/auth/register', { body: { email: uniqueEmail(), password: PASSWORD } }))
        .status,
    ).toBe(201);
    expect(
      (await throttled.call('POST', '/api/auth/login', { body: { email: uniqueEmail(), password: PASSWORD } })).status,
    ).toBe(401);
    const third = await throttled.call('POST', '/api/auth/register', {
      body: { email: uniqueEmail(), password: PASSWORD },
    });
    expect(third.status).toBe(429);
    expect(third.body.error.code).toBe('RATE_LIMITED');
  });

  it('never leaks another session: a token for one user reads only that user', async () => {
    const alice = await signUp(server);
    const bob = await signUp(server);
    expect((await server.call('GET', '/api/auth/me', { token: alice.token })).body.user.id).toBe(alice.user.id);
    expect((await server.call('GET', '/api/auth/me', { token: bob.token })).body.user.id).toBe(bob.user.id);
  });
});
