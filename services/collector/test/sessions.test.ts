// Sessions to the millisecond: what is stored, when a token stops working, how it is compared, and what a failed
// sign-in tells. Timings are measured by `pnpm --filter @collector/fuzz timing`, never asserted here.
import { createHash } from 'node:crypto';
import { sql } from '@collector/db';
import { describe, expect, it } from 'vitest';
import { PASSWORD, type Reply, signUp, startTestServer, uniqueEmail } from './harness';

const MINUTE = 60 * 1000;
const DAY = 24 * 60 * MINUTE;
const IDLE = 30 * DAY;
const ABSOLUTE = 90 * DAY;

let now = Date.now();
const server = await startTestServer({ clock: () => now });
const db = server.database.db;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const sessionRow = (token: string) =>
  db.selectFrom('sessions').selectAll().where('id', '=', sha256(token)).executeTakeFirst();
const me = (token: string) => server.call('GET', '/api/auth/me', { token });
const login = async (email: string) => {
  const reply = await server.call('POST', '/api/auth/login', { body: { email, password: PASSWORD } });
  expect(reply.status).toBe(200);
  return reply.body.token as string;
};

describe('what is stored', () => {
  it('keeps no raw token in any column of any table, only its SHA-256', async () => {
    const { token, email } = await signUp(server);
    const second = await login(email);
    now += 2 * MINUTE; // a use that writes the slid expiry back
    expect((await me(token)).status).toBe(200);
    const loggedOut = await login(email);
    expect((await server.call('POST', '/api/auth/logout', { token: loggedOut })).status).toBe(204);

    const tables = await sql<{
      table_name: string;
    }>`select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(
      db,
    );
    expect(tables.rows.map((row) => row.table_name)).toContain('sessions');
    for (const each of [token, second, loggedOut]) {
      const secret = each.slice('session_'.length);
      const forms = [
        secret,
        Buffer.from(secret).toString('base64'),
        Buffer.from(secret).toString('hex'),
        secret.toUpperCase(),
      ];
      for (const { table_name: table } of tables.rows) {
        const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db);
        const text = JSON.stringify(rows);
        for (const form of forms) expect(text.includes(form), `${table} holds a form of a token`).toBe(false);
      }
    }
    expect(await sessionRow(token)).toMatchObject({ id: sha256(token) });
    expect(await sessionRow(second)).toMatchObject({ id: sha256(second) });
  });

  it('gives 160-bit tokens of one shape, a new one at each login', async () => {
    const { token, email } = await signUp(server);
    const tokens = [token];
    for (let i = 0; i < 8; i++) tokens.push(await login(email));
    expect(new Set(tokens).size).toBe(tokens.length);
    // 31 characters of [a-z0-9]: 31 * log2(36) = 160 bits.
    for (const each of tokens) expect(each).toMatch(/^session_[a-z0-9]{31}$/);
    // Not a counter or a timestamp: no two share a prefix longer than chance allows.
    const prefixes = new Set(tokens.map((each) => each.slice(0, 'session_'.length + 4)));
    expect(prefixes.size).toBe(tokens.length);
  });
});

describe('expiry', () => {
  it('ends a session exactly 30 idle days after its last use, and deletes it then', async () => {
    const start = now;
    const { token: idle } = await signUp(server);
    now = start + IDLE - 1;
    expect((await me(idle)).status).toBe(200);
    // Used a millisecond before its end, it slides: alive until 30 days after that use.
    now = start + IDLE - 1 + IDLE - 1;
    expect((await me(idle)).status).toBe(200);
    now += IDLE;
    const expired = await me(idle);
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe('UNAUTHENTICATED');
    expect(expired.headers.get('www-authenticate')).toBe('Bearer');
    expect(await sessionRow(idle)).toBeUndefined();
  });

  it('refuses a token at the very millisecond its idle time runs out', async () => {
    const start = now;
    const { token } = await signUp(server);
    now = start + IDLE;
    expect((await me(token)).status).toBe(401);
    expect(await sessionRow(token)).toBeUndefined();
  });

  it('writes the slid expiry back at most once a minute', async () => {
    const start = now;
    const { token } = await signUp(server);
    expect((await sessionRow(token))?.expires_at).toBe(start + IDLE);
    now = start + 59 * 1000;
    expect((await me(token)).status).toBe(200);
    expect((await sessionRow(token))?.expires_at).toBe(start + IDLE);
    now = start + MINUTE;
    expect((await me(token)).status).toBe(200);
    expect((await sessionRow(token))?.expires_at).toBe(start + MINUTE + IDLE);
  });

  it('ends a session 90 days after login to the millisecond, however it is used, and sliding never passes that', async () => {
    const start = now;
    const { token } = await signUp(server);
    for (let day = 20; day < 90; day += 20) {
      now = start + day * DAY;
      expect((await me(token)).status, `day ${day}`).toBe(200);
    }
    now = start + ABSOLUTE - 1;
    expect((await me(token)).status).toBe(200);
    expect((await sessionRow(token))?.expires_at).toBeLessThanOrEqual(start + ABSOLUTE);
    now = start + ABSOLUTE;
    expect((await me(token)).status).toBe(401);
    expect(await sessionRow(token)).toBeUndefined();
  });

  it('lets the user sign in again after expiry, with a new token', async () => {
    const start = now;
    const { token, email } = await signUp(server);
    now = start + IDLE;
    expect((await me(token)).status).toBe(401);
    const fresh = await login(email);
    expect(fresh).not.toBe(token);
    expect((await me(fresh)).status).toBe(200);
    expect((await me(token)).status).toBe(401);
  });
});

describe('logout', () => {
  it('deletes the session: the token is refused everywhere and a second logout is 401', async () => {
    const { token } = await signUp(server);
    expect((await server.call('POST', '/api/auth/logout', { token })).status).toBe(204);
    expect(await sessionRow(token)).toBeUndefined();
    for (const [method, path] of [
      ['GET', '/api/auth/me'],
      ['GET', '/api/apps'],
      ['GET', '/api/overview'],
      ['GET', '/api/issues'],
      ['POST', '/api/auth/logout'],
    ] as const) {
      const reply = await server.call(method, path, { token });
      expect(reply.status, path).toBe(401);
      expect(reply.body.error.code).toBe('UNAUTHENTICATED');
    }
  });
});

describe('token comparison', () => {
  it('refuses a token differing in any single character, with the same answer as an unknown token', async () => {
    const { token } = await signUp(server);
    const unknown = await me(`session_${'0'.repeat(31)}`);
    expect(unknown.status).toBe(401);
    const secret = token.slice('session_'.length);
    for (let i = 0; i < secret.length; i++) {
      const changed = secret[i] === 'a' ? 'b' : 'a';
      const reply = await me(`session_${secret.slice(0, i)}${changed}${secret.slice(i + 1)}`);
      expect(reply.status, `position ${i}`).toBe(401);
      expect(reply.body).toEqual(unknown.body);
    }
    for (const near of [
      token.slice(0, -1),
      `${token}a`,
      token.toUpperCase(),
      `session_${secret.split('').reverse().join('')}`,
      secret,
    ]) {
      const reply = await me(near);
      expect(reply.status, near).toBe(401);
      expect(reply.body).toEqual(unknown.body);
    }
    expect((await me(token)).status).toBe(200);
  });

  it('looks tokens up by their hash: what the database holds does not open a session', async () => {
    const { token } = await signUp(server);
    const stored = sha256(token);
    expect(await sessionRow(token)).toBeDefined();
    // A leaked sessions table gives hashes; presented as tokens they are hashed again and match nothing.
    for (const leaked of [stored, `session_${stored}`, `session_${stored.slice(0, 31)}`]) {
      expect((await me(leaked)).status, leaked).toBe(401);
    }
  });
});

describe('failed sign-in', () => {
  it('answers an unknown e-mail and a wrong password alike: status, body and headers', async () => {
    const { email } = await signUp(server);
    const attempts = [
      { email, password: 'not the password' },
      { email: email.toUpperCase(), password: `${PASSWORD}!` },
      { email: uniqueEmail(), password: 'not the password' },
      { email: uniqueEmail(), password: PASSWORD },
      { email: ` ${uniqueEmail()} `, password: PASSWORD.slice(0, -1) },
    ];
    const replies: Reply[] = [];
    for (const body of attempts) replies.push(await server.call('POST', '/api/auth/login', { body }));
    const headerNames = (reply: Reply) =>
      [...reply.headers.keys()].filter((name) => !['date', 'etag', 'content-length'].includes(name)).sort();
    const [first, ...rest] = replies;
    expect(first?.status).toBe(401);
    expect(first?.body).toEqual({ error: { code: 'INVALID_CREDENTIALS', message: expect.any(String) } });
    for (const reply of rest) {
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual(first?.body);
      expect(headerNames(reply)).toEqual(headerNames(first as Reply));
    }
  });
});
