// The Sentry endpoints refusing what they must: wrong keys and projects, hostile bodies (always a 4xx, never a 5xx),
// and the app's one rate limit shared with the batch endpoint.
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { sentryLimits } from '@collector/domain';
import { describe, expect, it } from 'vitest';
import { createApp, makeEvent, sendBatch, signUp, startTestServer } from './harness';
import { dsnParts } from './sentry-fixtures';

const server = await startTestServer();

async function newApp() {
  const { token } = await signUp(server);
  const app = await createApp(server, token, { type: 'node' });
  return { token, app, ...dsnParts(app.dsn) };
}

const event = (overrides: Record<string, unknown> = {}) => ({
  event_id: crypto.randomUUID().replaceAll('-', ''),
  message: 'hello',
  ...overrides,
});
const envelopeOf = (payload: string, header = '{}') => `${header}\n{"type":"event"}\n${payload}\n`;

function expectError(reply: { status: number; body: any }, status: number, code: string) {
  expect(reply.status).toBe(status);
  expect(reply.body).toEqual({ error: expect.objectContaining({ code, message: expect.any(String) }) });
}

describe('Sentry endpoints: keys and projects', () => {
  it("403 UNKNOWN_APP_KEY for a missing, wrong or other app's key, and an unknown or malformed project", async () => {
    const mine = await newApp();
    const other = await newApp();
    const body = envelopeOf(JSON.stringify(event()));
    const cases = [
      `/api/${mine.projectId}/envelope/`,
      `/api/${mine.projectId}/envelope/?sentry_key=${'0'.repeat(32)}`,
      `/api/${mine.projectId}/envelope/?sentry_key=${other.publicKey}`,
      `/api/${mine.projectId}/envelope/?sentry_key=${mine.publicKey.toUpperCase()}`,
      `/api/999999999/envelope/?sentry_key=${mine.publicKey}`,
      `/api/0/envelope/?sentry_key=${mine.publicKey}`,
      `/api/abc/store/?sentry_key=${mine.publicKey}`,
    ];
    for (const path of cases) expectError(await server.call('POST', path, { rawBody: body }), 403, 'UNKNOWN_APP_KEY');
    expectError(
      await server.call('POST', `/api/${mine.projectId}/envelope/`, {
        rawBody: envelopeOf(JSON.stringify(event()), JSON.stringify({ dsn: other.app.dsn })),
      }),
      403,
      'UNKNOWN_APP_KEY',
    );
    expectError(
      await server.call('POST', `/api/${mine.projectId}/envelope/`, {
        rawBody: envelopeOf(JSON.stringify(event()), '{"dsn":"not a dsn"}'),
      }),
      403,
      'UNKNOWN_APP_KEY',
    );
    expectError(
      await server.call('POST', `/api/${mine.projectId}/store/`, {
        rawBody: JSON.stringify(event()),
        headers: { 'x-sentry-auth': 'Sentry sentry_version=7' },
      }),
      403,
      'UNKNOWN_APP_KEY',
    );
  });

  it('405 with Allow: POST for other methods', async () => {
    const { projectId } = await newApp();
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const reply = await server.call(method, `/api/${projectId}/envelope/`);
      expectError(reply, 405, 'METHOD_NOT_ALLOWED');
      expect(reply.headers.get('allow')).toBe('POST');
    }
  });
});

describe('Sentry endpoints: hostile bodies get 4xx, never 5xx', () => {
  it("answers each with the contract's error and stores nothing", async () => {
    const { token, app, projectId, publicKey } = await newApp();
    const path = (kind: string) => `/api/${projectId}/${kind}/?sentry_key=${publicKey}`;
    const zeros = Buffer.alloc(sentryLimits.decodedBytes + 4 * 1024 * 1024);
    const cases: Array<[string, string, string | Buffer, Record<string, string>, number, string]> = [
      ['empty', 'envelope', '', {}, 400, 'INVALID_JSON'],
      ['not JSON', 'envelope', 'hello\n', {}, 400, 'INVALID_JSON'],
      ['truncated', 'envelope', `{}\n{"type":"event","length":400}\n{"message":"x"}`, {}, 400, 'INVALID_JSON'],
      ['a length that lies', 'envelope', `{}\n{"type":"event","length":3}\n{"message":"x"}\n`, {}, 400, 'INVALID_JSON'],
      [
        'invalid UTF-8',
        'envelope',
        Buffer.concat([
          Buffer.from('{}\n{"type":"event"}\n{"message":"'),
          Buffer.from([0xc3, 0x28]),
          Buffer.from('"}\n'),
        ]),
        {},
        400,
        'INVALID_JSON',
      ],
      [
        'nested past the limit',
        'envelope',
        envelopeOf(`{"extra":${'['.repeat(100)}${']'.repeat(100)}}`),
        {},
        400,
        'VALIDATION_FAILED',
      ],
      [
        'two events',
        'envelope',
        envelopeOf(JSON.stringify(event())) + envelopeOf(JSON.stringify(event())).slice(3),
        {},
        400,
        'VALIDATION_FAILED',
      ],
      [
        'an event the rules reject',
        'store',
        JSON.stringify(event({ release: 'r'.repeat(300) })),
        {},
        400,
        'VALIDATION_FAILED',
      ],
      [
        'an event id the rules reject',
        'store',
        JSON.stringify(event({ event_id: 'no spaces allowed' })),
        {},
        400,
        'VALIDATION_FAILED',
      ],
      ['a gzip bomb', 'envelope', gzipSync(zeros), { 'content-encoding': 'gzip' }, 413, 'PAYLOAD_TOO_LARGE'],
      ['a brotli bomb', 'envelope', brotliCompressSync(zeros), { 'content-encoding': 'br' }, 413, 'PAYLOAD_TOO_LARGE'],
      [
        'over 1 MiB on the wire',
        'envelope',
        Buffer.alloc(sentryLimits.wireBytes + 1, 0x20),
        {},
        413,
        'PAYLOAD_TOO_LARGE',
      ],
      [
        'an event over 1 MiB',
        'store',
        gzipSync(JSON.stringify(event({ message: 'x'.repeat(sentryLimits.eventBytes) }))),
        { 'content-encoding': 'gzip' },
        413,
        'PAYLOAD_TOO_LARGE',
      ],
      ['broken gzip', 'store', 'not gzip', { 'content-encoding': 'gzip' }, 400, 'INVALID_JSON'],
      [
        'an unknown encoding',
        'store',
        JSON.stringify(event()),
        { 'content-encoding': 'compress' },
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      ],
    ];
    for (const [name, kind, body, headers, status, code] of cases) {
      const reply = await server.call('POST', path(kind), { rawBody: body, headers });
      expect({ name, status: reply.status, code: reply.body?.error?.code }).toEqual({ name, status, code });
    }
    // 10,000 items, one of them an event: read through, the event kept.
    const many = `{}\n${'{"type":"span"}\n{}\n'.repeat(9_999)}{"type":"event"}\n${JSON.stringify(event())}\n`;
    expect((await server.call('POST', path('envelope'), { rawBody: many })).status).toBe(200);
    expect((await server.call('GET', `/api/overview?appKey=${app.appKey}`, { token })).body.totals.events).toBe(1);
    // Still serving.
    expect((await server.call('GET', '/healthz')).status).toBe(200);
  });
});

describe("Sentry endpoints: the app's rate limit", () => {
  it('429 with Retry-After and X-Sentry-Rate-Limits, one limit across the batch and both Sentry endpoints', async () => {
    // A clock that stands still: no token comes back between requests, however slow the machine.
    const now = Date.now();
    const limited = await startTestServer({ rateLimits: { ingestPerSecond: 1, ingestBurst: 3 }, clock: () => now });
    const { token } = await signUp(limited);
    const app = await createApp(limited, token, { type: 'node' });
    const { projectId, publicKey } = dsnParts(app.dsn);
    expect((await sendBatch(limited, app.appKey, [makeEvent(), makeEvent()])).status).toBe(200);
    expect(
      (await limited.call('POST', `/api/${projectId}/store/?sentry_key=${publicKey}`, { body: event() })).status,
    ).toBe(200);
    const refused = await limited.call('POST', `/api/${projectId}/envelope/?sentry_key=${publicKey}`, {
      rawBody: envelopeOf(JSON.stringify(event())),
      headers: { origin: 'https://shop.example' },
    });
    expectError(refused, 429, 'RATE_LIMITED');
    const wait = refused.headers.get('retry-after');
    expect(wait).toMatch(/^[1-9]\d*$/);
    expect(refused.headers.get('x-sentry-rate-limits')).toBe(`${wait}::organization`);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
    expect((await sendBatch(limited, app.appKey, [makeEvent()])).status).toBe(429);
  });
});
