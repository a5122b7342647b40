import { describe, expect, it } from 'vitest';
import { PASSWORD, signUp, startTestServer, uniqueEmail } from './harness';

const server = await startTestServer();

describe('auth, happy paths', () => {
  it('registers with 201, a session token and the user without any password', async () => {
    const email = uniqueEmail();
    const reply = await server.call('POST', '/api/auth/register', { body: { email, password: PASSWORD } });
    expect(reply.status).toBe(201);
    expect(reply.body.token).toMatch(/^session_[a-z0-9]{31}$/);
    expect(reply.body.user).toEqual({
      id: expect.stringMatching(/^user_[a-z0-9]+$/),
      email,
      createdAt: expect.any(Number),
    });
    expect(JSON.stringify(reply.body)).not.toMatch(/password|hash|argon/i);
  });

  it('trims and lower-cases the e-mail, and logs in with another case', async () => {
    const email = uniqueEmail();
    const registered = await server.call('POST', '/api/auth/register', {
      body: { email: `  ${email.toUpperCase()} `, password: PASSWORD },
    });
    expect(registered.body.user.email).toBe(email);
    const login = await server.call('POST', '/api/auth/login', {
      body: { email: email.toUpperCase(), password: PASSWORD },
    });
    expect(login.status).toBe(200);
    expect(login.body.user).toEqual(registered.body.user);
  });

  it('gives a new token at each login, and every live token works', async () => {
    const { token, email, user } = await signUp(server);
    const first = await server.call('POST', '/api/auth/login', { body: { email, password: PASSWORD } });
    const second = await server.call('POST', '/api/auth/login', { body: { email, password: PASSWORD } });
    expect(new Set([token, first.body.token, second.body.token]).size).toBe(3);
    for (const each of [token, first.body.token, second.body.token]) {
      const me = await server.call('GET', '/api/auth/me', { token: each });
      expect(me.status).toBe(200);
      expect(me.body).toEqual({ user });
    }
  });

  it('logs out with 204 and refuses the token afterwards, other sessions unaffected', async () => {
    const { token, email } = await signUp(server);
    const other = await server.call('POST', '/api/auth/login', { body: { email, password: PASSWORD } });
    const logout = await server.call('POST', '/api/auth/logout', { token });
    expect(logout.status).toBe(204);
    expect(logout.body).toBeUndefined();
    const me = await server.call('GET', '/api/auth/me', { token });
    expect(me.status).toBe(401);
    expect(me.body.error.code).toBe('UNAUTHENTICATED');
    expect((await server.call('GET', '/api/auth/me', { token: other.body.token })).status).toBe(200);
  });

  it('accepts a logout sent with an empty JSON body', async () => {
    const { token } = await signUp(server);
    const logout = await server.call('POST', '/api/auth/logout', { token, body: {} });
    expect(logout.status).toBe(204);
  });
});
