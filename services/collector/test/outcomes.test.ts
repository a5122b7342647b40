// GET /api/outcomes through HTTP: every reason counted exactly (429s included), every reason listed, the caller's apps
// only, strict query parameters.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  createApp,
  makeEvent,
  makeEvents,
  sendBatch,
  sendRawBatch,
  signUp,
  startTestServer,
  type TestServer,
} from './harness';
import { dsnParts } from './sentry-fixtures';

const server = await startTestServer({ rateLimits: { ingestPerSecond: 1, ingestBurst: 50 } });
const { token } = await signUp(server);

/** The outcomes once they settle: counts decided before the write statement are written about once a second. */
async function outcomesOf(target: TestServer, query: string, expected: Record<string, number>) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const reply = await target.call('GET', `/api/outcomes${query}`, { token });
    expect(reply.status).toBe(200);
    const counts = Object.fromEntries(
      reply.body.outcomes.map((outcome: { reason: string; events: number }) => [outcome.reason, outcome.events]),
    );
    if (JSON.stringify(counts) === JSON.stringify(expected) || Date.now() > deadline)
      return { counts, body: reply.body };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('GET /api/outcomes', () => {
  it('counts every reason exactly, 429s and oversize bodies included, and lists every reason', async () => {
    const { appKey } = await createApp(server, token);
    const zero = {
      accepted: 0,
      duplicate: 0,
      invalid: 0,
      rate_limited: 0,
      too_large: 0,
      unsupported: 0,
      client_discard: 0,
    };
    expect((await outcomesOf(server, `?appKey=${appKey}`, zero)).body).toEqual({
      outcomes: [
        ...['accepted', 'duplicate', 'invalid', 'rate_limited', 'too_large', 'unsupported'].map((reason) => ({
          reason,
          events: 0,
        })),
        { reason: 'client_discard', events: 0, clientReasons: [] },
      ],
    });

    // 3 stored, 2 invalid.
    const first = [
      makeEvent(),
      makeEvent(),
      makeEvent(),
      makeEvent({ timestamp: 'yesterday' }),
      makeEvent({ type: 'crash' }),
    ];
    expect((await sendBatch(server, appKey, first)).body).toMatchObject({ accepted: 3, duplicates: 0 });
    // 2 retries, 1 new, and a repeat within the batch: 2 stored, 3 duplicates.
    const repeated = makeEvent();
    const second = [first[0], first[1], makeEvent(), repeated, repeated];
    expect((await sendBatch(server, appKey, second)).body).toMatchObject({ accepted: 5, duplicates: 3 });
    // 10 of the burst of 50 spent (a few refilled since, one a second): 50 more is over it, a 429 whose events count.
    const limited = await sendBatch(server, appKey, makeEvents(50));
    expect(limited.status).toBe(429);
    // Two bodies over 1 MiB: one declared so (refused before it is read), one gzip-compressed that grows past it.
    const huge = JSON.stringify({ appKey, events: [makeEvent({ message: 'x'.repeat(2 * 1024 * 1024) })] });
    expect((await sendRawBatch(server, huge)).status).toBe(413);
    const bomb = gzipSync(Buffer.from(huge));
    const compressed = await sendRawBatch(server, bomb, 'gzip');
    expect(compressed.status).toBe(413);
    // One that names no appKey in its first bytes cannot be attributed.
    const anonymous = JSON.stringify({ events: [makeEvent({ message: 'x'.repeat(2 * 1024 * 1024) })], appKey });
    expect((await sendRawBatch(server, anonymous)).status).toBe(413);

    const expected = {
      accepted: 5,
      duplicate: 3,
      invalid: 2,
      rate_limited: 50,
      too_large: 2,
      unsupported: 0,
      client_discard: 0,
    };
    expect((await outcomesOf(server, `?appKey=${appKey}`, expected)).counts).toEqual(expected);
    // Over all of the caller's apps, the same (the other app has none); a window after now, nothing.
    await createApp(server, token);
    expect((await outcomesOf(server, '', expected)).counts).toEqual(expected);
    const later = Date.now() + 2 * 3_600_000;
    expect((await outcomesOf(server, `?appKey=${appKey}&from=${later}`, zero)).counts).toEqual(zero);
    expect((await outcomesOf(server, `?appKey=${appKey}&from=0&to=${later}`, expected)).counts).toEqual(expected);
  });

  it('counts envelope items the Sentry endpoints skip as unsupported (not a client report, which is read), and an oversize envelope whose key is in the URL', async () => {
    const app = await createApp(server, token, { type: 'node' });
    const { projectId, publicKey } = dsnParts(app.dsn);
    const line = (value: unknown) => `${JSON.stringify(value)}\n`;
    const body =
      line({ event_id: 'aaaabbbbccccddddeeeeffff00002222' }) +
      line({ type: 'event' }) +
      line({ event_id: 'aaaabbbbccccddddeeeeffff00002222', message: 'hello' }) +
      line({ type: 'session' }) +
      line({ sid: 'x', status: 'ok' }) +
      line({ type: 'client_report' }) +
      line({ discarded_events: [] });
    const sent = await server.call('POST', `/api/${projectId}/envelope/?sentry_key=${publicKey}`, {
      rawBody: body,
      headers: { 'content-type': 'text/plain' },
    });
    expect(sent.status).toBe(200);
    const huge = await server.call('POST', `/api/${projectId}/envelope/?sentry_key=${publicKey}`, {
      rawBody: 'x'.repeat(2 * 1024 * 1024),
      headers: { 'content-type': 'text/plain' },
    });
    expect(huge.status).toBe(413);
    const expected = {
      accepted: 1,
      duplicate: 0,
      invalid: 0,
      rate_limited: 0,
      too_large: 1,
      unsupported: 1,
      client_discard: 0,
    };
    expect((await outcomesOf(server, `?appKey=${app.appKey}`, expected)).counts).toEqual(expected);
  });

  it('answers 404 for another user’s app, 401 without a token, 400 for a malformed window', async () => {
    const stranger = await signUp(server);
    const theirs = await createApp(server, stranger.token);
    expect((await server.call('GET', `/api/outcomes?appKey=${theirs.appKey}`, { token })).status).toBe(404);
    expect((await server.call('GET', '/api/outcomes?appKey=web_nosuchapp', { token })).status).toBe(404);
    const anonymous = await server.call('GET', '/api/outcomes');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('UNAUTHENTICATED');
    for (const query of ['from=abc', 'from=', 'from=1.5', 'to=-1', 'from=10&to=5']) {
      const reply = await server.call('GET', `/api/outcomes?${query}`, { token });
      expect(reply.status, query).toBe(400);
      expect(reply.body.error.code).toBe('VALIDATION_FAILED');
    }
  });
});
