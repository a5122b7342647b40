// /trpc answers every contract error with the contract's HTTP status and headers, as REST does (issue #20): a frozen
// database is a 503 with Retry-After there too, not a 500, and every 401 challenges with WWW-Authenticate.
import { connect, createServer, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { errorStatus } from '@collector/api';
import { type CollectorError, createCollectorClient } from '@collector/client';
import { DEFAULT_TIMEOUTS, RETRY_AFTER_UNAVAILABLE_SECONDS } from '@collector/db';
import { testDatabaseUrl } from '@collector/db/testing';
import type { ErrorCode } from '@collector/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEvent, PASSWORD, type Reply, signUp, startTestServer, type TestServer, uniqueEmail } from './harness';

/**
 * A TCP proxy in front of the test database that can freeze like a SIGSTOPped PostgreSQL: connections are still
 * accepted, and nothing is read or answered on new ones or on those already open, until it thaws.
 */
async function freezableProxy(target: string) {
  const upstream = new URL(target);
  const sockets = new Set<Socket>();
  let frozen = false;
  const track = (socket: Socket) => {
    sockets.add(socket);
    if (frozen) socket.pause();
    socket.on('close', () => sockets.delete(socket));
  };
  const server = createServer((client) => {
    const database = connect(Number(upstream.port || 5432), upstream.hostname);
    track(client);
    track(database);
    client.on('data', (chunk) => database.write(chunk));
    database.on('data', (chunk) => client.write(chunk));
    client.on('error', () => database.destroy());
    database.on('error', () => client.destroy());
    client.on('close', () => database.destroy());
    database.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as { port: number }).port);
  return {
    url: url.href,
    freeze() {
      frozen = true;
      for (const socket of sockets) socket.pause();
    },
    thaw() {
      frozen = false;
      for (const socket of sockets) socket.resume();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function failureOf(call: Promise<unknown>): Promise<CollectorError> {
  return call.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (failure: CollectorError) => failure,
  );
}

/** The contract's status, codes and headers on a tRPC error answer. */
function expectContractError(reply: Reply, code: ErrorCode) {
  const { status, trpc } = errorStatus[code];
  expect({ status: reply.status, code: reply.body?.error?.data?.appError?.code }).toEqual({ status, code });
  expect(reply.body.error.data).toMatchObject({ code: trpc, httpStatus: status });
  if (status === 401) expect(reply.headers.get('www-authenticate')).toBe('Bearer');
  if (status === 429 || status === 503) expect(reply.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
}

const query = (path: string, input: unknown) => `/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`;

let proxy: Awaited<ReturnType<typeof freezableProxy>>;
let server: TestServer;
let origin: string;

beforeAll(async () => {
  proxy = await freezableProxy(await testDatabaseUrl());
  // Registered before the server's stop, so it runs after it (hooks unwind as a stack).
  afterAll(() => proxy.close());
  server = await startTestServer({
    database: { url: proxy.url },
    // The service's own: they are what answers while the database is frozen.
    databaseTimeouts: DEFAULT_TIMEOUTS,
    rateLimits: { authPerEmail: { ratePerSecond: 1 / 600, burst: 2 } },
  });
  origin = server.url.replace('localhost', '127.0.0.1');
});

describe('a frozen database', () => {
  it('is a 503 with Retry-After on /trpc as on REST, which the typed client reads, and then recovers', async () => {
    const { token } = await signUp(server);
    const client = createCollectorClient({ baseUrl: origin, token });
    proxy.freeze();
    try {
      const started = performance.now();
      const [me, overview, rest, typed] = await Promise.all([
        server.call('GET', '/trpc/auth.me', { token }),
        server.call('GET', query('overview.get', {}), { token }),
        server.call('GET', '/api/overview', { token }),
        failureOf(client.overview.get.query({})),
      ]);
      // Answered while still frozen, by the database's timeouts (3.5 s at most), with slack for a loaded CI machine.
      expect(performance.now() - started).toBeLessThan(8_000);
      for (const reply of [me, overview]) {
        expectContractError(reply, 'UNAVAILABLE');
        expect(reply.headers.get('retry-after')).toBe(String(RETRY_AFTER_UNAVAILABLE_SECONDS));
        expect(reply.body.error.data.appError.message).toBe(errorStatus.UNAVAILABLE.message);
      }
      expect(rest.status).toBe(503);
      expect(rest.headers.get('retry-after')).toBe(String(RETRY_AFTER_UNAVAILABLE_SECONDS));
      expect(rest.body).toEqual({ error: { code: 'UNAVAILABLE', message: errorStatus.UNAVAILABLE.message } });
      expect(typed).toMatchObject({
        code: 'UNAVAILABLE',
        status: 503,
        retryAfterSeconds: RETRY_AFTER_UNAVAILABLE_SECONDS,
      });
    } finally {
      proxy.thaw();
    }
    let after: Reply | undefined;
    for (let attempt = 0; attempt < 40 && after?.status !== 200; attempt++) {
      if (attempt > 0) await sleep(250);
      after = await server.call('GET', '/trpc/auth.me', { token });
    }
    expect(after?.status).toBe(200);
    expect((await client.auth.me.query()).user.email).toBeTypeOf('string');
  });
});

describe('login refused', () => {
  it('challenges with WWW-Authenticate: Bearer on REST and on /trpc', async () => {
    const { email } = await signUp(server);
    const credentials = { email, password: `${PASSWORD} but wrong` };
    const rest = await server.call('POST', '/api/auth/login', { body: credentials });
    expect(rest.status).toBe(401);
    expect(rest.body.error.code).toBe('INVALID_CREDENTIALS');
    expect(rest.headers.get('www-authenticate')).toBe('Bearer');
    const trpc = await server.call('POST', '/trpc/auth.login', { body: { ...credentials, email: uniqueEmail() } });
    expectContractError(trpc, 'INVALID_CREDENTIALS');
  });
});

describe('every contract error over /trpc', () => {
  const login = (body: unknown) => server.call('POST', '/trpc/auth.login', { body });
  const cases: [ErrorCode, string, () => Promise<Reply>][] = [
    [
      'INVALID_JSON',
      'an unparseable body',
      () =>
        server.call('POST', '/trpc/auth.login', { rawBody: '{bad', headers: { 'content-type': 'application/json' } }),
    ],
    ['VALIDATION_FAILED', 'an input off the schema', () => login({ email: 42, password: PASSWORD })],
    [
      'VALIDATION_FAILED',
      'a batch',
      () => server.call('GET', `/trpc/${Array.from({ length: 3 }, () => 'auth.me').join(',')}?batch=1`),
    ],
    ['VALIDATION_FAILED', 'a path that is not URL-encoded', () => server.call('GET', '/trpc/auth.me%E0%A4%A')],
    ['UNAUTHENTICATED', 'no token', () => server.call('GET', '/trpc/auth.me')],
    ['INVALID_CREDENTIALS', 'an unknown e-mail', () => login({ email: uniqueEmail(), password: PASSWORD })],
    [
      'UNKNOWN_APP_KEY',
      'ingestion for no app',
      () => server.call('POST', '/trpc/events.ingest', { body: { appKey: 'web_nope', events: [makeEvent()] } }),
    ],
    ['NOT_FOUND', 'no such procedure', () => server.call('GET', '/trpc/nothing.here')],
    ['METHOD_NOT_ALLOWED', 'a GET of a mutation', () => server.call('GET', query('auth.login', {}))],
    [
      'EMAIL_TAKEN',
      'a second registration',
      async () => {
        const { email } = await signUp(server);
        return server.call('POST', '/trpc/auth.register', { body: { email, password: PASSWORD } });
      },
    ],
    [
      'PAYLOAD_TOO_LARGE',
      'a body over 1 MiB',
      () => login({ email: uniqueEmail(), password: PASSWORD, padding: 'x'.repeat(1024 * 1024) }),
    ],
    [
      'UNSUPPORTED_MEDIA_TYPE',
      'an XML body',
      () => server.call('POST', '/trpc/auth.login', { rawBody: '<login/>', headers: { 'content-type': 'text/xml' } }),
    ],
    [
      'RATE_LIMITED',
      'a third failed login for one e-mail',
      async () => {
        const email = uniqueEmail();
        for (let attempt = 0; attempt < 2; attempt++) await login({ email, password: PASSWORD });
        return login({ email, password: PASSWORD });
      },
    ],
  ];

  it.each(cases)('answers %s with its contract status for %s', async (code, _case, send) => {
    expectContractError(await send(), code);
  });
});
