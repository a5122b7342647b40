// The typed client against a live server: every procedure, typed, with contract error codes; and the README's example.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { CollectorError, createCollectorClient, errorCodeOf, TRPCClientError } from '@collector/client';
import { describe, expect, it } from 'vitest';
import { makeEvent, makeEvents, PASSWORD, readmeBlock, startTestServer, uniqueEmail } from './harness';

const server = await startTestServer();
const baseUrl = server.url.replace('localhost', '127.0.0.1');
const rateLimited = await startTestServer({ rateLimits: { ingestPerSecond: 1, ingestBurst: 50 } });

// README "## Typed client" shows this function, byte for byte (checked below).
export async function loadDashboard(baseUrl: string, email: string, password: string) {
  let token: string | undefined;
  const client = createCollectorClient({ baseUrl, token: () => token });
  try {
    ({ token } = await client.auth.login.mutate({ email, password }));
  } catch (error) {
    if (error instanceof CollectorError && error.code === 'INVALID_CREDENTIALS') return { signedIn: false as const };
    throw error;
  }
  const { apps } = await client.apps.list.query();
  const appKey = apps[0]?.appKey;
  const { totals } = await client.overview.get.query({ appKey });
  const { issues, nextCursor } = await client.issues.list.query({ appKey, limit: 20 });
  const latest = issues[0] ? await client.issues.get.query({ id: issues[0].id, limit: 5 }) : undefined;
  return { signedIn: true as const, totals, issues, nextCursor, latest };
}

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

async function failureOf(call: Promise<unknown>): Promise<CollectorError> {
  const error = await call.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  if (!(error instanceof CollectorError)) throw new Error(`expected a CollectorError, got ${String(error)}`);
  return error;
}

describe('typed client', () => {
  it('covers every procedure', async () => {
    let token: string | undefined;
    const client = createCollectorClient({ baseUrl, token: () => token });
    const email = uniqueEmail();
    const registered = await client.auth.register.mutate({ email, password: PASSWORD });
    expect(registered.user.email).toBe(email);
    token = (await client.auth.login.mutate({ email, password: PASSWORD })).token;
    expect(token).not.toBe(registered.token);
    expect((await client.auth.me.query()).user.email).toBe(email);
    const { app } = await client.apps.create.mutate({ name: 'Shop', type: 'web' });
    expect((await client.apps.list.query()).apps.map((listed) => listed.appKey)).toEqual([app.appKey]);
    const ingested = await client.events.ingest.mutate({
      appKey: app.appKey,
      events: [makeEvent({ fingerprint: 'js:client' }), makeEvent({ type: 'request', fingerprint: 'js:req' })],
    });
    expect(ingested).toEqual({ accepted: 2, duplicates: 0, rejected: [] });
    const { issues, nextCursor } = await client.issues.list.query({ appKey: app.appKey, limit: 1 });
    expect(issues).toHaveLength(1);
    expect(nextCursor).not.toBeNull();
    const rest = await client.issues.list.query({ appKey: app.appKey, cursor: nextCursor ?? undefined });
    expect([...issues, ...rest.issues].map((issue) => issue.id).sort()).toEqual([
      `${app.appKey}:js:client`,
      `${app.appKey}:js:req`,
    ]);
    const detail = await client.issues.get.query({ id: `${app.appKey}:js:client` });
    expect(detail.events).toHaveLength(1);
    expect((await client.overview.get.query({ appKey: app.appKey })).totals).toMatchObject({
      events: 2,
      errors: 1,
      failedRequests: 1,
      issues: 2,
    });
    const series = await client.overview.timeseries.query({ appKey: app.appKey, bucket: 'hour' });
    expect(series.buckets.reduce((sum, bucket) => sum + bucket.events, 0)).toBe(2);
    await client.auth.logout.mutate();
    expect((await failureOf(client.auth.me.query())).code).toBe('UNAUTHENTICATED');
  });

  it('rejects with a CollectorError carrying the contract code, status and details', async () => {
    const client = createCollectorClient({ baseUrl });
    const unauthenticated = await failureOf(client.auth.me.query());
    expect(unauthenticated).toBeInstanceOf(TRPCClientError);
    expect(unauthenticated).toMatchObject({ code: 'UNAUTHENTICATED', status: 401, name: 'CollectorError' });
    expect(errorCodeOf(unauthenticated)).toBe('UNAUTHENTICATED');

    const invalid = await failureOf(client.auth.register.mutate({ email: 'not an address', password: PASSWORD }));
    expect(invalid).toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
    expect(invalid.details.map((detail) => detail.path)).toContain('email');

    const taken = uniqueEmail();
    await client.auth.register.mutate({ email: taken, password: PASSWORD });
    expect(await failureOf(client.auth.register.mutate({ email: taken, password: PASSWORD }))).toMatchObject({
      code: 'EMAIL_TAKEN',
      status: 409,
    });
    expect(await failureOf(client.events.ingest.mutate({ appKey: 'web_nope', events: [makeEvent()] }))).toMatchObject({
      code: 'UNKNOWN_APP_KEY',
      status: 403,
    });

    // Numeric query inputs are numbers, held to the bounds the REST query strings are.
    const signedIn = createCollectorClient({
      baseUrl,
      token: (await client.auth.login.mutate({ email: taken, password: PASSWORD })).token,
    });
    expect(await failureOf(signedIn.issues.list.query({ limit: 0 }))).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await failureOf(signedIn.issues.list.query({ limit: 101 }))).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await failureOf(signedIn.issues.list.query({ limit: 1.5 }))).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await failureOf(signedIn.overview.get.query({ from: 10, to: 5 }))).toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    expect((await signedIn.overview.get.query({ from: 0, to: Date.now() })).totals.events).toBe(0);
    expect(
      (await signedIn.overview.timeseries.query({ bucket: 'day', from: Date.now() - 3 * 86_400_000 })).buckets.length,
    ).toBeGreaterThanOrEqual(3);
    expect(await failureOf(signedIn.issues.get.query({ id: 'web_nope:js:x' }))).toMatchObject({
      code: 'NOT_FOUND',
      status: 404,
    });
  });

  it('says RATE_LIMITED with the status on 429', async () => {
    const client = createCollectorClient({ baseUrl: rateLimited.url.replace('localhost', '127.0.0.1') });
    const { token } = await client.auth.register.mutate({ email: uniqueEmail(), password: PASSWORD });
    const { app } = await createCollectorClient({
      baseUrl: rateLimited.url.replace('localhost', '127.0.0.1'),
      token,
    }).apps.create.mutate({ name: 'Busy', type: 'web' });
    const events = makeEvents(50);
    await client.events.ingest.mutate({ appKey: app.appKey, events });
    const limited = await failureOf(client.events.ingest.mutate({ appKey: app.appKey, events: [makeEvent()] }));
    expect(limited).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    // /trpc sends Retry-After on a 429 as REST does, and the client reads it.
    expect(limited.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });

  it('reads Retry-After from the answer when there is one', async () => {
    const client = createCollectorClient({
      baseUrl,
      fetch: async (input, init) => {
        const answer = await fetch(input, init);
        const headers = new Headers(answer.headers);
        headers.set('retry-after', '7');
        return new Response(await answer.text(), { status: answer.status, headers });
      },
    });
    expect(await failureOf(client.auth.me.query())).toMatchObject({ code: 'UNAUTHENTICATED', retryAfterSeconds: 7 });
  });

  it('says NETWORK_ERROR when nothing answers', async () => {
    const client = createCollectorClient({ baseUrl: `http://127.0.0.1:${await closedPort()}` });
    const failure = await failureOf(client.auth.me.query());
    expect(failure).toMatchObject({ code: 'NETWORK_ERROR', status: 0, details: [] });
    expect(errorCodeOf(failure)).toBeUndefined();
  });

  it('takes a custom fetch (e.g. to add headers or run in older runtimes)', async () => {
    const seen: string[] = [];
    const client = createCollectorClient({
      baseUrl: `${baseUrl}/`,
      fetch: (input, init) => {
        seen.push(String(input));
        return fetch(input, init);
      },
    });
    expect((await failureOf(client.auth.me.query())).code).toBe('UNAUTHENTICATED');
    expect(seen).toEqual([`${baseUrl}/trpc/auth.me`]);
  });

  it('runs the README example as printed there', async () => {
    const source = readFileSync(new URL(import.meta.url), 'utf8');
    const example = readmeBlock('Typed client', 'ts');
    const [imports, code] = example.split('\n\n', 2) as [string, string];
    // The example's import names what this file imports from the same module (Biome joins the two into one line).
    const [, names = '', from] = /^import \{ (.+) \} from '([^']+)';$/.exec(imports) ?? [];
    const imported = new RegExp(`^import \\{ (.+) \\} from '${from}';$`, 'm').exec(source)?.[1]?.split(', ') ?? [];
    expect(imported).toEqual(expect.arrayContaining(names.split(', ')));
    expect(source).toContain(code);

    const email = uniqueEmail();
    const { token } = (await server.call('POST', '/api/auth/register', { body: { email, password: PASSWORD } })).body;
    const { app } = (await server.call('POST', '/api/apps', { token, body: { name: 'Shop', type: 'web' } })).body;
    await server.call('POST', '/api/events/batch', {
      body: { appKey: app.appKey, events: [makeEvent({ fingerprint: 'js:readme' })] },
    });

    expect(await loadDashboard(baseUrl, email, 'a wrong passphrase')).toEqual({ signedIn: false });
    const dashboard = await loadDashboard(baseUrl, email, PASSWORD);
    expect(dashboard.signedIn).toBe(true);
    if (!dashboard.signedIn) return;
    expect(dashboard.totals.events).toBe(1);
    expect(dashboard.issues.map((issue) => issue.id)).toEqual([`${app.appKey}:js:readme`]);
    expect(dashboard.latest?.events).toHaveLength(1);
  });
});
