import { describe, expect, it } from 'vitest';
import { PASSWORD, signUp, startTestServer, uniqueEmail } from './harness';

const server = await startTestServer();

function expectError(reply: { status: number; body: any }, status: number, code: string) {
  expect(reply.status).toBe(status);
  expect(reply.body).toEqual({ error: expect.objectContaining({ code, message: expect.any(String) }) });
  expect(Object.keys(reply.body)).toEqual(['error']);
}

describe('register, errors', () => {
  it.each([
    ['missing e-mail', { password: PASSWORD }, 'email'],
    ['non-address e-mail', { email: 'not-an-email', password: PASSWORD }, 'email'],
    ['e-mail over 254 characters', { email: `${'a'.repeat(250)}@example.com`, password: PASSWORD }, 'email'],
    ['e-mail as a number', { email: 42, password: PASSWORD }, 'email'],
    ['password of 7 characters', { email: 'x@example.com', password: '1234567' }, 'password'],
    ['password of 129 characters', { email: 'x@example.com', password: 'p'.repeat(129) }, 'password'],
    ['password as a number', { email: 'x@example.com', password: 123456789 }, 'password'],
  ])('answers 400 VALIDATION_FAILED for %s, naming the field', async (_case, body, field) => {
    const reply = await server.call('POST', '/api/auth/register', { body });
    expectError(reply, 400, 'VALIDATION_FAILED');
    expect(reply.body.error.details).toContainEqual({ path: field, message: expect.any(String) });
    expect(reply.body.error.message).toMatch(new RegExp(`^${field}: `));
  });

  it('refuses one of the most common passwords', async () => {
    const reply = await server.call('POST', '/api/auth/register', {
      body: { email: uniqueEmail(), password: 'password123' },
    });
    expectError(reply, 400, 'VALIDATION_FAILED');
    expect(reply.body.error.details).toEqual([{ path: 'password', message: 'is one of the most common passwords' }]);
  });

  it('keeps a 128-character password exactly, without truncation', async () => {
    const email = uniqueEmail();
    const password = `${'x'.repeat(127)}y`;
    expect((await server.call('POST', '/api/auth/register', { body: { email, password } })).status).toBe(201);
    const truncated = await server.call('POST', '/api/auth/login', {
      body: { email, password: password.slice(0, 127) },
    });
    expectError(truncated, 401, 'INVALID_CREDENTIALS');
  });

  it('answers 409 EMAIL_TAKEN for a registered e-mail, whatever its case', async () => {
    const { email } = await signUp(server);
    const reply = await server.call('POST', '/api/auth/register', {
      body: { email: email.toUpperCase(), password: PASSWORD },
    });
    expectError(reply, 409, 'EMAIL_TAKEN');
  });

  it('answers 400 INVALID_JSON for a body that is not JSON', async () => {
    const reply = await server.call('POST', '/api/auth/register', {
      rawBody: '{"email": ',
      headers: { 'content-type': 'application/json' },
    });
    expectError(reply, 400, 'INVALID_JSON');
  });

  it('answers 415 for a body that is not application/json', async () => {
    const reply = await server.call('POST', '/api/auth/register', {
      rawBody: 'email=a',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectError(reply, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('takes application/json with a charset', async () => {
    const reply = await server.call('POST', '/api/auth/register', {
      rawBody: JSON.stringify({ email: uniqueEmail(), password: PASSWORD }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(reply.status).toBe(201);
  });

  it('answers 413 for a body over 64 KiB', async () => {
    const reply = await server.call('POST', '/api/auth/register', {
      body: { email: uniqueEmail(), password: PASSWORD, padding: 'x'.repeat(70_000) },
    });
    expectError(reply, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('ignores unknown fields', async () => {
    const reply = await server.call('POST', '/api/auth/register', {
      body: { email: uniqueEmail(), password: PASSWORD, admin: true },
    });
    expect(reply.status).toBe(201);
    expect(reply.body.user).not.toHaveProperty('admin');
  });
});

describe('login, errors', () => {
  it('gives one answer for an unknown e-mail and a wrong password', async () => {
    const { email } = await signUp(server);
    const wrongPassword = await server.call('POST', '/api/auth/login', {
      body: { email, password: 'not the password' },
    });
    const unknownEmail = await server.call('POST', '/api/auth/login', {
      body: { email: uniqueEmail(), password: 'not the password' },
    });
    expectError(wrongPassword, 401, 'INVALID_CREDENTIALS');
    expect(unknownEmail.status).toBe(401);
    expect(unknownEmail.body).toEqual(wrongPassword.body);
  });

  it('answers 400 when a field has the wrong type', async () => {
    const reply = await server.call('POST', '/api/auth/login', { body: { email: ['a@b.c'], password: PASSWORD } });
    expectError(reply, 400, 'VALIDATION_FAILED');
  });
});

describe('me and logout, errors', () => {
  it.each([
    ['no header', undefined],
    ['a malformed header', 'Token abc'],
    ['an unknown token', 'Bearer session_unknownunknownunknownunknown1'],
    ['garbage', 'Bearer <script>'],
  ])('answers 401 UNAUTHENTICATED with WWW-Authenticate for %s', async (_case, authorization) => {
    for (const [method, path] of [
      ['GET', '/api/auth/me'],
      ['POST', '/api/auth/logout'],
    ] as const) {
      const reply = await server.call(method, path, { headers: authorization ? { authorization } : {} });
      expectError(reply, 401, 'UNAUTHENTICATED');
      expect(reply.headers.get('www-authenticate')).toBe('Bearer');
    }
  });
});
