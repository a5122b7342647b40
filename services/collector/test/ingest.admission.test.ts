// Admission control for ingestion (packages/api/src/ingestion/budget.ts) through real HTTP: a small budget of bytes in
// flight, requests held open mid-body to fill it, and what is answered past it (503 UNAVAILABLE with Retry-After, the
// body unread), on the batch endpoint, the Sentry endpoints and tRPC; every reservation given back, however the request
// ends.
import { once } from 'node:events';
import { type ClientRequest, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { CollectorError, createCollectorClient } from '@collector/client';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createApp, makeEvent, makeEvents, sendRawBatch, signUp, startTestServer, uniqueEmail } from './harness';
import { dsnParts } from './sentry-fixtures';

const BUDGET = 512 * 1024;
const logLines: Array<{ msg: string; refused?: number }> = [];
const logger = pino(
  { level: 'warn' },
  new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
      done();
    },
  }),
);
const server = await startTestServer({ ingestMaxInFlightBytes: BUDGET, logger });
const { port } = new URL(server.url);
const budget = server.ingestBudget;
const { token } = await signUp(server);

/** Lines the budget logged about refusals. */
const refusalLines = () => logLines.filter((line) => line.msg.includes('INGEST_MAX_IN_FLIGHT_BYTES'));

/** A batch of ten events with 20 KB stacks, about 213 KB of JSON; every call the same length (ids are all UUIDs). */
function largeBatch(appKey: string): Buffer {
  const stack = `TypeError: x is not a function\n${'    at renderCart (https://shop.example/assets/app.3f9a2c1b.js:10:20)\n'.repeat(300)}`;
  return Buffer.from(JSON.stringify({ appKey, events: makeEvents(10, { stack }) }));
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: any;
}

interface Sending {
  request: ClientRequest;
  /** The body not sent yet. */
  rest: Buffer;
  answer: Promise<Answer>;
}

/** Sends a POST's headers and the start of its body (a KiB at most, half of a small one), and holds the rest back (`finish` sends it). */
function startPost(path: string, body: Buffer, headers: Record<string, string> = {}): Sending {
  const request = httpRequest({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path,
    agent: false,
    headers: { 'content-type': 'application/json', 'content-length': String(body.length), ...headers },
  });
  const answer = new Promise<Answer>((resolve, reject) => {
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: text ? JSON.parse(text) : undefined,
        });
      });
    });
    request.on('error', reject);
  });
  // An aborted request rejects its answer; a test that aborts does not wait for one.
  answer.catch(() => undefined);
  const head = Math.min(1024, Math.floor(body.length / 2));
  request.write(body.subarray(0, head));
  return { request, rest: body.subarray(head), answer };
}

const finish = (sending: Sending) => sending.request.end(sending.rest);

/**
 * On one connection: a login (argon2 takes tens of milliseconds to answer it), then another request, whose answer is
 * queued behind the login's. Resolves once that request holds part of the budget.
 */
async function behindLogin(head: string, body: Buffer) {
  const login = JSON.stringify({ email: uniqueEmail(), password: 'not the password of anyone' });
  const socket = connect(Number(port), '127.0.0.1');
  await once(socket, 'connect');
  const connection = { socket, received: '' };
  socket.on('data', (chunk: Buffer) => {
    connection.received += chunk.toString('utf8');
  });
  socket.write(
    Buffer.concat([
      Buffer.from(
        `POST /api/auth/login HTTP/1.1\r\nHost: collector\r\nContent-Type: application/json\r\nContent-Length: ${login.length}\r\n\r\n${login}${head}`,
      ),
      body,
    ]),
  );
  while (budget.bytesInFlight === 0) await new Promise((resolve) => setTimeout(resolve, 1));
  return connection;
}

/** A request's line and headers, written by hand. */
const requestHead = (path: string, length: number, headers: Record<string, string> = {}) =>
  `POST ${path} HTTP/1.1\r\nHost: collector\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${Object.entries(
    headers,
  )
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;

async function storedEvents(appKey: string): Promise<number> {
  return (await server.call('GET', `/api/overview?appKey=${appKey}`, { token })).body.totals.events;
}

function expectBusy(answer: { status: number; body: any }, retryAfter: string | null) {
  expect(answer.status).toBe(503);
  expect(retryAfter).toBe('1');
  expect(answer.body).toEqual({
    error: {
      code: 'UNAVAILABLE',
      message: expect.any(String),
      details: [{ path: '', message: expect.stringContaining('retry after') }],
    },
  });
}

describe('ingestion over its budget of bytes in flight', () => {
  it('answers 503 with Retry-After at once to the batches past it, stores every batch it took, and gives every byte back', async () => {
    const { appKey } = await createApp(server, token);
    const bodies = Array.from({ length: 6 }, () => largeBatch(appKey));
    const size = bodies[0]?.length ?? 0;
    expect(new Set(bodies.map((body) => body.length)).size).toBe(1);
    // 213 KB each against 512 KiB: two fit.
    const fits = Math.floor(BUDGET / size);
    expect(fits).toBe(2);

    const sending = bodies.map((body) => startPost('/api/events/batch', body));
    const answered: Answer[] = [];
    for (const each of sending) void each.answer.then((answer) => answered.push(answer));
    // Those past the budget are answered while every body is still incomplete: nothing of theirs was waited for.
    await expect.poll(() => answered.length, { timeout: 10_000 }).toBe(bodies.length - fits);
    expect(budget.bytesInFlight).toBe(fits * size);
    for (const answer of answered) expectBusy(answer, answer.headers['retry-after'] ?? null);
    // A burst is one warning line, not one per request.
    expect(refusalLines()).toHaveLength(1);
    expect(refusalLines()[0]?.refused).toBe(1);

    for (const each of sending) finish(each);
    const answers = await Promise.all(sending.map((each) => each.answer));
    expect(answers.map((answer) => answer.status).sort()).toEqual([
      ...Array(fits).fill(200),
      ...Array(bodies.length - fits).fill(503),
    ]);
    const accepted = answers
      .filter((answer) => answer.status === 200)
      .reduce((sum, answer) => sum + answer.body.accepted, 0);
    expect(accepted).toBe(fits * 10);
    expect(await storedEvents(appKey)).toBe(accepted);

    await expect.poll(() => budget.bytesInFlight).toBe(0);
    const again = await sendRawBatch(server, largeBatch(appKey));
    expect(again.status).toBe(200);
    expect(again.body.accepted).toBe(10);
    await expect.poll(() => budget.bytesInFlight).toBe(0);
  });

  it('a burst of concurrent batches: each answered 200 or 503, nothing accepted lost, the budget back at 0', async () => {
    const { appKey } = await createApp(server, token);
    const url = `${server.url.replace('localhost', '127.0.0.1')}/api/events/batch`;
    const replies = await Promise.all(
      Array.from({ length: 16 }, async () => {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: largeBatch(appKey),
        });
        return {
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          body: (await response.json()) as any,
        };
      }),
    );
    for (const reply of replies) {
      expect([200, 503]).toContain(reply.status);
      if (reply.status === 503) expectBusy(reply, reply.retryAfter);
    }
    const accepted = replies
      .filter((reply) => reply.status === 200)
      .reduce((sum, reply) => sum + reply.body.accepted, 0);
    expect(accepted).toBeGreaterThan(0);
    expect(await storedEvents(appKey)).toBe(accepted);
    await expect.poll(() => budget.bytesInFlight).toBe(0);
  });

  it('counts a compressed body at the most it may inflate to (1 MiB), and still takes one alone when it is more than the budget', async () => {
    const { appKey } = await createApp(server, token);
    const held = startPost('/api/events/batch', largeBatch(appKey));
    await expect.poll(() => budget.bytesInFlight).toBeGreaterThan(0);
    const compressed = gzipSync(largeBatch(appKey));
    // 213 KB held + 1 MiB > 512 KiB, though the compressed body itself is a few KB.
    const refused = await sendRawBatch(server, compressed, 'gzip');
    expectBusy(refused, refused.headers.get('retry-after'));

    finish(held);
    expect((await held.answer).status).toBe(200);
    await expect.poll(() => budget.bytesInFlight).toBe(0);
    const alone = await sendRawBatch(server, compressed, 'gzip');
    expect(alone.status).toBe(200);
    expect(await storedEvents(appKey)).toBe(20);
    await expect.poll(() => budget.bytesInFlight).toBe(0);
  });
});

describe('a reservation is given back however the request ends', () => {
  it('a client that sends headers and part of a body, then goes away', async () => {
    const { appKey } = await createApp(server, token);
    const body = largeBatch(appKey);
    for (const [sent, headers] of [
      [body, {}],
      [gzipSync(body), { 'content-encoding': 'gzip' }],
    ] as const) {
      const sending = startPost('/api/events/batch', sent, headers);
      // As it is: its length; compressed: what it may inflate to.
      await expect.poll(() => budget.bytesInFlight).toBe(sent === body ? body.length : 1024 * 1024);
      sending.request.destroy();
      await expect.poll(() => budget.bytesInFlight).toBe(0);
    }
    // Given back once: the next batch counts from 0 and ends at 0, never below.
    const sending = startPost('/api/events/batch', body);
    await expect.poll(() => budget.bytesInFlight).toBe(body.length);
    finish(sending);
    expect((await sending.answer).status).toBe(200);
    await expect.poll(() => budget.bytesInFlight).toBe(0);
    expect(await storedEvents(appKey)).toBe(10);
  });

  /** A batch's headers and first KiB, pipelined behind a login. */
  async function pipelinedBatch() {
    const { appKey } = await createApp(server, token);
    const body = largeBatch(appKey);
    return {
      size: body.length,
      connection: await behindLogin(requestHead('/api/events/batch', body.length), body.subarray(0, 1024)),
    };
  }

  it('a pipelined batch whose answer waits behind another when the connection dies (its response never closes, its socket does)', async () => {
    const { size, connection } = await pipelinedBatch();
    expect(budget.bytesInFlight).toBe(size);
    // The batch's response is queued behind the login's, which is not out yet: the case where only the socket closes.
    expect(connection.received).toBe('');
    connection.socket.destroy();
    await expect.poll(() => budget.bytesInFlight).toBe(0);
  });

  it("a pipelined batch whose answer had become the connection's own when it died: given back once, not twice", async () => {
    const { size, connection } = await pipelinedBatch();
    await expect.poll(() => connection.received).toMatch(/^HTTP\/1\.1 401 /);
    expect(budget.bytesInFlight).toBe(size);
    connection.socket.destroy();
    await expect.poll(() => budget.bytesInFlight).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(budget.bytesInFlight).toBe(0);
  });
});

describe('a compressed body holds the most it may inflate to only while it is read', () => {
  /** Every value the budget takes while `call` runs, sampled at each turn of the event loop (the server shares it). */
  async function budgetDuring<T>(call: () => Promise<T>): Promise<{ result: T; seen: Set<number> }> {
    const seen = new Set<number>();
    let done = false;
    const sample = () => {
      seen.add(budget.bytesInFlight);
      if (!done) setImmediate(sample);
    };
    sample();
    try {
      return { result: await call(), seen };
    } finally {
      done = true;
    }
  }

  it('a batch: 1 MiB while it is read, then its decompressed size while its events wait for their statement', async () => {
    const { appKey } = await createApp(server, token);
    const body = largeBatch(appKey);
    const { result, seen } = await budgetDuring(() => sendRawBatch(server, gzipSync(body), 'gzip'));
    expect(result.status).toBe(200);
    expect([...seen].sort((a, b) => a - b)).toEqual([0, body.length, 1024 * 1024]);
    await expect.poll(() => budget.bytesInFlight).toBe(0);
  });

  it('an envelope: what its parser kept (its header line and its event), not what streamed through', async () => {
    const { appKey, dsn } = await createApp(server, token, { type: 'node' });
    const { projectId, publicKey } = dsnParts(dsn);
    const event = {
      event_id: crypto.randomUUID().replaceAll('-', ''),
      message: 'hello',
      extra: { padding: 'x'.repeat(100_000) },
    };
    const header = JSON.stringify({ event_id: event.event_id });
    // A skipped attachment of 2 MB streams through without being kept.
    const body = gzipSync(
      `${header}\n{"type":"attachment","length":2000000}\n${'a'.repeat(2_000_000)}\n{"type":"event"}\n${JSON.stringify(event)}\n`,
    );
    const { result, seen } = await budgetDuring(() =>
      server.call('POST', `/api/${projectId}/envelope/?sentry_key=${publicKey}`, {
        rawBody: body,
        headers: { 'content-encoding': 'gzip' },
      }),
    );
    expect(result.status).toBe(200);
    expect([...seen].sort((a, b) => a - b)).toEqual([
      0,
      header.length + JSON.stringify(event).length,
      // Reserved before reading: an event, a feedback or report item (128 KiB), two header lines (64 KiB each).
      1024 * 1024 + 128 * 1024 + 128 * 1024,
    ]);
    expect(await storedEvents(appKey)).toBe(1);
  });
});

describe('the Sentry endpoints share the budget', () => {
  const envelope = (event: Record<string, unknown>) =>
    Buffer.from(`${JSON.stringify({ event_id: event.event_id })}\n{"type":"event"}\n${JSON.stringify(event)}\n`);
  const sentryEvent = () => ({
    event_id: crypto.randomUUID().replaceAll('-', ''),
    message: 'hello',
    extra: { padding: 'x'.repeat(400_000) },
  });

  it('503 with Retry-After and X-Sentry-Rate-Limits past it, on /envelope/ and /store/; 200 once there is room', async () => {
    const { appKey, dsn } = await createApp(server, token, { type: 'node' });
    const { projectId, publicKey } = dsnParts(dsn);
    const held = startPost('/api/events/batch', largeBatch(appKey));
    await expect.poll(() => budget.bytesInFlight).toBeGreaterThan(0);

    const event = sentryEvent();
    // About 400 KB as it is (213 KB held + 400 KB > 512 KiB), and compressed: counted at one event and its headers.
    const cases: Array<[string, Buffer, Record<string, string>]> = [
      [`/api/${projectId}/envelope/?sentry_key=${publicKey}`, envelope(event), {}],
      [
        `/api/${projectId}/envelope/?sentry_key=${publicKey}`,
        gzipSync(envelope(event)),
        { 'content-encoding': 'gzip' },
      ],
      [`/api/${projectId}/store/?sentry_key=${publicKey}`, Buffer.from(JSON.stringify(event)), {}],
    ];
    for (const [path, body, headers] of cases) {
      const reply = await server.call('POST', path, {
        rawBody: body,
        headers: { 'content-type': 'application/x-sentry-envelope', ...headers },
      });
      expectBusy(reply, reply.headers.get('retry-after'));
      // What Sentry SDKs honour whatever the status (sentry-python reads Retry-After only on a 429).
      expect(reply.headers.get('x-sentry-rate-limits')).toBe('1::organization');
    }

    finish(held);
    expect((await held.answer).status).toBe(200);
    await expect.poll(() => budget.bytesInFlight).toBe(0);
    const [path, body, headers] = cases[1] as (typeof cases)[number];
    const stored = await server.call('POST', path, { rawBody: body, headers });
    expect(stored.status).toBe(200);
    expect(stored.body).toEqual({ id: event.event_id });
    expect(await storedEvents(appKey)).toBe(11);
    await expect.poll(() => budget.bytesInFlight).toBe(0);
  });

  it('an envelope cut off mid-body gives its reservation back', async () => {
    const { dsn } = await createApp(server, token, { type: 'node' });
    const { projectId, publicKey } = dsnParts(dsn);
    const body = envelope(sentryEvent());
    const sending = startPost(`/api/${projectId}/envelope/?sentry_key=${publicKey}`, body, {
      'content-type': 'application/x-sentry-envelope',
    });
    await expect.poll(() => budget.bytesInFlight).toBe(body.length);
    sending.request.destroy();
    await expect.poll(() => budget.bytesInFlight).toBe(0);
  });
});

describe('tRPC takes the budget too', () => {
  it('a call past it fails with UNAVAILABLE and Retry-After, as the typed client reads them; once there is room it goes through', async () => {
    const { appKey } = await createApp(server, token);
    const client = createCollectorClient({ baseUrl: server.url.replace('localhost', '127.0.0.1'), token });
    // 600 KB of events: 213 KB held + 600 KB > 512 KiB.
    const events = Array.from({ length: 30 }, () =>
      makeEvent({ message: 'm'.repeat(8_000), stack: 's'.repeat(12_000) }),
    );
    const held = startPost('/api/events/batch', largeBatch(appKey));
    await expect.poll(() => budget.bytesInFlight).toBeGreaterThan(0);
    const failure = await client.events.ingest.mutate({ appKey, events }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(CollectorError);
    expect(failure).toMatchObject({ code: 'UNAVAILABLE', status: 503, retryAfterSeconds: 1 });

    finish(held);
    expect((await held.answer).status).toBe(200);
    await expect.poll(() => budget.bytesInFlight).toBe(0);
    expect((await client.events.ingest.mutate({ appKey, events })).accepted).toBe(30);
    expect(await storedEvents(appKey)).toBe(40);
    await expect.poll(() => budget.bytesInFlight).toBe(0);
  });
});
