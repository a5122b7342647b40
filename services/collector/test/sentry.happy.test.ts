// The Sentry endpoints through HTTP with the requests the real SDKs sent (fixtures/sentry): stored once, visible as
// issues, whichever way the key comes.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { corsPreflight, createApp, signUp, startTestServer } from './harness';
import { dsnParts, fixtures } from './sentry-fixtures';

const server = await startTestServer();

async function newApp(type = 'node') {
  const { token } = await signUp(server);
  const app = await createApp(server, token, { type });
  return { token, app, ...dsnParts(app.dsn) };
}

const eventEnvelope = (event: Record<string, unknown>, header: Record<string, unknown> = {}) =>
  `${JSON.stringify({ event_id: event.event_id, sent_at: new Date().toISOString(), ...header })}\n{"type":"event"}\n${JSON.stringify(event)}\n`;

const event = (overrides: Record<string, unknown> = {}) => ({
  event_id: crypto.randomUUID().replaceAll('-', ''),
  timestamp: Date.now() / 1000,
  platform: 'node',
  exception: {
    values: [
      {
        type: 'TypeError',
        value: 'x is not a function',
        stacktrace: { frames: [{ function: 'main', filename: '/app/main.js', lineno: 3, colno: 5, in_app: true }] },
      },
    ],
  },
  ...overrides,
});

describe('Sentry endpoints, happy paths', () => {
  it('stores what the real SDKs sent, answers { id } or {} and shows the events as issues with their counts', async () => {
    const { token, app, projectId, publicKey } = await newApp();
    const ids: string[] = [];
    for (const fixture of fixtures) {
      const reply = await server.call(
        'POST',
        `/api/${projectId}/${fixture.kind}/?sentry_key=${publicKey}&sentry_version=7`,
        { rawBody: fixture.body, headers: fixture.headers },
      );
      expect(reply.status, fixture.file).toBe(200);
      if (reply.body.id) ids.push(reply.body.id);
      else expect(reply.body).toEqual({});
    }
    expect(ids.length).toBe(10);
    const issues = (await server.call('GET', `/api/issues?appKey=${app.appKey}`, { token })).body.issues as Array<{
      errorType: string;
      message: string;
      eventCount: number;
      userCount: number;
    }>;
    expect(issues.reduce((sum, issue) => sum + issue.eventCount, 0)).toBe(10);
    const byMessage = new Map(issues.map((issue) => [issue.message, issue]));
    expect(byMessage.get('card declined for amount 1999')).toMatchObject({
      errorType: 'TypeError',
      eventCount: 1,
      userCount: 1,
    });
    expect(byMessage.get("invalid literal for int() with base 10: '12a'")).toMatchObject({ errorType: 'ValueError' });
    expect(byMessage.get('HTTP Client Error with status code: 500')).toMatchObject({ errorType: 'Error' });
    expect(byMessage.get('nightly export skipped')).toMatchObject({ errorType: 'Message' });

    // The same requests again (an SDK retrying): stored once.
    for (const fixture of fixtures)
      await server.call('POST', `/api/${projectId}/${fixture.kind}?sentry_key=${publicKey}`, {
        rawBody: fixture.body,
        headers: fixture.headers,
      });
    const again = (await server.call('GET', `/api/issues?appKey=${app.appKey}`, { token })).body.issues as Array<{
      eventCount: number;
    }>;
    expect(again.reduce((sum, issue) => sum + issue.eventCount, 0)).toBe(10);
  });

  it('keeps the event as the collector stores it: frames, level, user, release, request', async () => {
    const { token, app, projectId, publicKey } = await newApp();
    const sent = event({ level: 'fatal', release: 'api@1.0.0', environment: 'prod', user: { email: 'a@example.com' } });
    const reply = await server.call('POST', `/api/${projectId}/envelope/?sentry_key=${publicKey}`, {
      rawBody: eventEnvelope(sent),
    });
    expect(reply.body).toEqual({ id: sent.event_id });
    const [issue] = (await server.call('GET', `/api/issues?appKey=${app.appKey}`, { token })).body.issues;
    const detail = await server.call('GET', `/api/issues/${encodeURIComponent(issue.id)}`, { token });
    expect(detail.body.events[0]).toMatchObject({
      eventId: `evt_${sent.event_id}`,
      type: 'error',
      errorType: 'TypeError',
      level: 'fatal',
      release: 'api@1.0.0',
      environment: 'prod',
      anonymousId: expect.stringMatching(/^anon_a_0040example/),
      frames: [{ function: 'main', file: '/app/main.js', line: 3, column: 5, inApp: true }],
      stack: 'TypeError: x is not a function\n    at main (/app/main.js:3:5)',
    });
  });

  it('takes the key from the query, X-Sentry-Auth or the envelope header dsn, with or without the trailing slash', async () => {
    const { app, token, projectId, publicKey } = await newApp();
    const auth = {
      'x-sentry-auth': `Sentry sentry_version=7, sentry_client=raven-python/6.0, sentry_key=${publicKey}`,
    };
    const cases = [
      { path: `/api/${projectId}/envelope/?sentry_key=${publicKey}`, headers: {}, header: {} },
      { path: `/api/${projectId}/envelope`, headers: auth, header: {} },
      { path: `/api/${projectId}/envelope/`, headers: {}, header: { dsn: app.dsn } },
    ];
    for (const { path, headers, header } of cases) {
      const sent = event();
      const reply = await server.call('POST', path, { rawBody: eventEnvelope(sent, header), headers });
      expect(reply.status, path).toBe(200);
      expect(reply.body).toEqual({ id: sent.event_id });
    }
    const store = await server.call('POST', `/api/${projectId}/store`, { body: event(), headers: auth });
    expect(store.status).toBe(200);
    const totals = (await server.call('GET', `/api/overview?appKey=${app.appKey}`, { token })).body.totals;
    expect(totals.events).toBe(4);
  });

  it('reads the SDK from sentry_client, in the query or X-Sentry-Auth, on the paths SDKs use and on other spellings', async () => {
    const { token, app, projectId, publicKey } = await newApp();
    // The second spelling of each pair (upper case) is answered by Express's routes
    // rather than by the fast path taken before Express: both read the key and the client alike.
    const cases: Array<{ path: string; headers: Record<string, string> }> = [
      { path: `/api/${projectId}/envelope/?sentry_key=${publicKey}&sentry_client=raven-js/3.22.1`, headers: {} },
      { path: `/API/${projectId}/envelope/?sentry_client=raven-js/3.22.2&sentry_key=${publicKey}`, headers: {} },
      {
        path: `/api/${projectId}/store/`,
        headers: { 'x-sentry-auth': `Sentry sentry_version=7, sentry_client=raven-js/3.22.3, sentry_key=${publicKey}` },
      },
      {
        path: `/api/${projectId}/STORE/`,
        headers: { 'x-sentry-auth': `Sentry sentry_version=7, sentry_client=raven-js/3.22.4, sentry_key=${publicKey}` },
      },
    ];
    const sent: string[] = [];
    for (const [index, { path, headers }] of cases.entries()) {
      const one = event({ message: `client case ${index}`, exception: undefined });
      const body = path.toLowerCase().includes('/envelope/') ? { rawBody: eventEnvelope(one) } : { body: one };
      const reply = await server.call('POST', path, { ...body, headers });
      expect(reply.status, path).toBe(200);
      sent.push(`evt_${one.event_id}`);
    }
    const issues = (await server.call('GET', `/api/issues?appKey=${app.appKey}`, { token })).body.issues;
    const versions = new Map<string, string>();
    for (const issue of issues) {
      const detail = await server.call('GET', `/api/issues/${encodeURIComponent(issue.id)}`, { token });
      for (const stored of detail.body.events) versions.set(stored.eventId, stored.sdkVersion);
    }
    expect(sent.map((id) => versions.get(id))).toEqual(['3.22.1', '3.22.2', '3.22.3', '3.22.4']);
  });

  it('takes any content type or none, and gzip, deflate and br', async () => {
    const { projectId, publicKey } = await newApp();
    const path = `/api/${projectId}/envelope/?sentry_key=${publicKey}`;
    for (const type of [
      'text/plain;charset=UTF-8',
      'application/x-sentry-envelope',
      'application/json',
      'application/octet-stream',
    ]) {
      expect(
        (await server.call('POST', path, { rawBody: eventEnvelope(event()), headers: { 'content-type': type } }))
          .status,
        type,
      ).toBe(200);
    }
    const zlib = await import('node:zlib');
    const encoders: Array<[string, (b: Buffer) => Buffer]> = [
      ['gzip', gzipSync],
      ['deflate', zlib.deflateSync],
      ['br', zlib.brotliCompressSync],
    ];
    for (const [encoding, encode] of encoders) {
      const reply = await server.call('POST', path, {
        rawBody: encode(Buffer.from(eventEnvelope(event()))),
        headers: { 'content-encoding': encoding },
      });
      expect(reply.status, encoding).toBe(200);
    }
  });

  it('answers {} for an envelope without an event, skipping every other item type', async () => {
    const { token, app, projectId, publicKey } = await newApp();
    const body = `{}\n{"type":"session"}\n{"sid":"1"}\n{"type":"client_report","length":2}\n{}\n{"type":"replay_recording","length":3}\nabc\n`;
    const reply = await server.call('POST', `/api/${projectId}/envelope/?sentry_key=${publicKey}`, { rawBody: body });
    expect(reply).toMatchObject({ status: 200, body: {} });
    expect((await server.call('GET', `/api/overview?appKey=${app.appKey}`, { token })).body.totals.events).toBe(0);
  });

  it('answers a browser preflight from any origin, allowing the headers SDKs send and exposing the rate-limit headers', async () => {
    const { projectId } = await newApp();
    const preflight = await corsPreflight(
      server,
      `/api/${projectId}/envelope/`,
      'content-type,x-sentry-auth,sentry-trace,baggage',
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toBe(
      'x-sentry-auth,content-type,content-encoding,authorization,sentry-trace,baggage',
    );
    const post = await server.call('POST', `/api/${projectId}/store/`, {
      body: event(),
      headers: { origin: 'https://shop.example' },
    });
    expect(post.headers.get('access-control-allow-origin')).toBe('*');
    expect(post.headers.get('access-control-expose-headers')).toBe('Retry-After,X-Sentry-Rate-Limits');
  });
});
