import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createApp, makeEvent, makeEvents, sendBatch, sendRawBatch, signUp, startTestServer } from './harness';

const server = await startTestServer();
const { token } = await signUp(server);
const { appKey } = await createApp(server, token);

async function storedEvents() {
  return (await server.call('GET', `/api/overview?appKey=${appKey}`, { token })).body.totals.events as number;
}

function expectError(reply: { status: number; body: any }, status: number, code: string) {
  expect(reply.status).toBe(status);
  expect(reply.body).toEqual({ error: expect.objectContaining({ code, message: expect.any(String) }) });
}

describe('ingestion, whole-request errors store nothing', () => {
  it.each([
    ['appKey missing', { events: [makeEvent()] }, 'appKey'],
    ['appKey not a string', { appKey: 7, events: [makeEvent()] }, 'appKey'],
    ['events missing', { appKey }, 'events'],
    ['events not an array', { appKey, events: makeEvent() }, 'events'],
    ['events empty', { appKey, events: [] }, 'events'],
    ['51 events', { appKey, events: makeEvents(51) }, 'events'],
  ])('400 VALIDATION_FAILED when %s', async (_case, body, path) => {
    const before = await storedEvents();
    const reply = await server.call('POST', '/api/events/batch', { body });
    expectError(reply, 400, 'VALIDATION_FAILED');
    expect(reply.body.error.details[0].path).toBe(path);
    expect(await storedEvents()).toBe(before);
  });

  it('says how many events are allowed', async () => {
    const reply = await sendBatch(server, appKey, makeEvents(51));
    expect(reply.body.error.message).toBe('events: must contain at most 50 items');
  });

  it('403 UNKNOWN_APP_KEY for an appKey no app has', async () => {
    const reply = await sendBatch(server, 'web_doesnotexist0000000000', [makeEvent()]);
    expectError(reply, 403, 'UNKNOWN_APP_KEY');
  });

  it('400 INVALID_JSON for a body that is not JSON, in either content type', async () => {
    for (const type of ['application/json', 'text/plain']) {
      const reply = await server.call('POST', '/api/events/batch', {
        rawBody: `{"appKey":"${appKey}","events":[`,
        headers: { 'content-type': type },
      });
      expectError(reply, 400, 'INVALID_JSON');
    }
  });

  it('400 INVALID_JSON for a corrupt gzip body', async () => {
    const reply = await sendRawBatch(server, 'definitely not gzip', 'gzip');
    expectError(reply, 400, 'INVALID_JSON');
  });

  it('400 for a JSON body that is not an object', async () => {
    for (const body of ['[1,2]', '"text"', '42', 'null']) {
      const reply = await sendRawBatch(server, body);
      expect(reply.status, body).toBe(400);
      expect(['INVALID_JSON', 'VALIDATION_FAILED']).toContain(reply.body.error.code);
    }
  });

  it('415 for another content type or a missing one', async () => {
    const body = JSON.stringify({ appKey, events: [makeEvent()] });
    for (const headers of [
      { 'content-type': 'application/xml' },
      { 'content-type': 'multipart/form-data; boundary=x' },
    ]) {
      const reply = await server.call('POST', '/api/events/batch', { rawBody: body, headers });
      expectError(reply, 415, 'UNSUPPORTED_MEDIA_TYPE');
    }
    // fetch labels a string body text/plain; bytes go without a content type.
    const untyped = await server.call('POST', '/api/events/batch', { rawBody: new TextEncoder().encode(body) });
    expectError(untyped, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('415 for an unknown Content-Encoding', async () => {
    const reply = await sendRawBatch(server, JSON.stringify({ appKey, events: [makeEvent()] }), 'zstd-of-the-future');
    expectError(reply, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('413 for a body over 1 MiB, plain or once decompressed (a gzip bomb)', async () => {
    const big = JSON.stringify({ appKey, events: [makeEvent({ message: 'x'.repeat(1024 * 1024) })] });
    expectError(await sendRawBatch(server, big), 413, 'PAYLOAD_TOO_LARGE');
    const bomb = gzipSync(JSON.stringify({ appKey, events: [makeEvent({ message: ' '.repeat(10 * 1024 * 1024) })] }));
    expect(bomb.length).toBeLessThan(64 * 1024);
    expectError(await sendRawBatch(server, bomb, 'gzip'), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('takes a body just under 1 MiB', async () => {
    const events = makeEvents(50, { stack: 's'.repeat(20_000) });
    const body = JSON.stringify({ appKey, events });
    expect(body.length).toBeGreaterThan(1_000_000);
    expect(body.length).toBeLessThan(1024 * 1024);
    const reply = await sendRawBatch(server, body);
    expect(reply.body.accepted).toBe(50);
  });
});

describe('ingestion, per-event rejection', () => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['eventId of the wrong shape', { eventId: 'event-1' }, /^eventId: /],
    ['eventId over 64 characters', { eventId: `evt_${'a'.repeat(65)}` }, /^eventId: /],
    ['a string timestamp', { timestamp: '1700000000000' }, /^timestamp: expected integer$/],
    ['an empty-string timestamp', { timestamp: '' }, /^timestamp: expected integer$/],
    ['a fractional timestamp', { timestamp: 1.5 }, /^timestamp: /],
    ['an unknown type', { type: 'crash' }, /^type: /],
    ['a sessionId of the wrong shape', { sessionId: 'tab-1' }, /^sessionId: /],
    ['an anonymousId of the wrong shape', { anonymousId: 'user-1' }, /^anonymousId: /],
    ['a non-numeric sdkVersion', { sdkVersion: '1.4.2-beta' }, /^sdkVersion: /],
    ['a platform over 32 characters', { platform: 'p'.repeat(33) }, /^platform: /],
    ['an errorType over 64 characters', { errorType: 'e'.repeat(65) }, /^errorType: /],
    ['a fingerprint without a colon', { fingerprint: 'nohash' }, /^fingerprint: /],
    ['101 breadcrumbs', { breadcrumbs: Array.from({ length: 101 }, () => ({ message: 'b' })) }, /^breadcrumbs: /],
    ['a breadcrumb that is not an object', { breadcrumbs: ['click'] }, /^breadcrumbs\.0: /],
    ['a different appKey', { appKey: 'web_someoneelse000000000' }, /^appKey: /],
    ['a request without a url', { type: 'request', request: { method: 'GET' } }, /^request\.url: /],
    ['a boolean message', { message: false }, /^message: /],
    [
      'nesting deeper than 16 levels',
      { breadcrumbs: [{ data: JSON.parse(`${'{"a":'.repeat(14)}1${'}'.repeat(14)}`) }] },
      /nested deeper than 16/,
    ],
  ];

  it.each(cases)('rejects %s and keeps the rest of the batch', async (_case, override, message) => {
    const bad = makeEvent(override);
    const good = makeEvent();
    const reply = await sendBatch(server, appKey, [good, bad]);
    expect(reply.status).toBe(200);
    expect(reply.body.accepted).toBe(1);
    expect(reply.body.rejected).toEqual([
      {
        index: 1,
        code: 'VALIDATION_FAILED',
        message: expect.stringMatching(message),
        ...(typeof bad.eventId === 'string' && /^evt_/.test(bad.eventId)
          ? { eventId: bad.eventId }
          : { eventId: expect.any(String) }),
      },
    ]);
  });

  it('accepts nesting of exactly 16 levels', async () => {
    // event(1) > breadcrumbs(2) > breadcrumb(3) > data(4) > 12 more objects = 16
    const data = JSON.parse(`${'{"a":'.repeat(12)}1${'}'.repeat(12)}`);
    const reply = await sendBatch(server, appKey, [makeEvent({ breadcrumbs: [{ data }] })]);
    expect(reply.body).toMatchObject({ accepted: 1, rejected: [] });
  });

  it('stores nothing and answers 200 when every event is rejected', async () => {
    const before = await storedEvents();
    const reply = await sendBatch(server, appKey, [{}, { eventId: 'evt_x' }]);
    expect(reply.status).toBe(200);
    expect(reply.body.accepted).toBe(0);
    expect(reply.body.rejected).toHaveLength(2);
    expect(await storedEvents()).toBe(before);
  });
});
