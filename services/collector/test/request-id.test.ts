// Every request carries an id: answered as X-Request-Id, and bound to every log line about that request.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { defaultRateLimits } from '@collector/api';
import { openDatabase } from '@collector/db';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { AlertWorker } from '../src/alerts/worker';
import { createApp } from '../src/app';
import { signUp, startTestServer } from './harness';

const server = await startTestServer();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('X-Request-Id', () => {
  it('is on every answer: success, contract error, unknown route, probe, tRPC', async () => {
    const { token } = await signUp(server);
    const replies = await Promise.all([
      server.call('GET', '/api/apps', { token }),
      server.call('GET', '/api/issues?limit=abc', { token }),
      server.call('GET', '/api/nothing'),
      server.call('GET', '/healthz'),
      server.call('GET', '/trpc/auth.me'),
    ]);
    expect(replies.map((reply) => reply.status)).toEqual([200, 400, 404, 200, 401]);
    const ids = replies.map((reply) => reply.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keeps a sane incoming id and replaces one that is not', async () => {
    const sent = 'lb-7f3a.2026/11:23+x=';
    expect(
      (await server.call('GET', '/healthz', { headers: { 'x-request-id': sent } })).headers.get('x-request-id'),
    ).toBe(sent);
    for (const insane of ['', 'has space', 'x'.repeat(129), '"quoted"', 'ü']) {
      expect(
        (await server.call('GET', '/healthz', { headers: { 'x-request-id': insane } })).headers.get('x-request-id'),
      ).toMatch(UUID);
    }
  });
});

describe('log lines', () => {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const http = createServer();
  afterAll(() => new Promise((resolve) => http.close(resolve)));

  it('carry the request id of the request they are about', async () => {
    // A database nobody listens on: every query fails as unavailable, which is logged.
    const database = await openDatabase({ url: 'postgres://postgres@127.0.0.1:1/none' });
    afterAll(() => database.close());
    const logger = pino({ level: 'info' }, sink);
    // The alert worker is given but not started: this test sends no alert.
    const alerts = new AlertWorker(database.db, { allowPrivateNetworks: false }, logger);
    http.on(
      'request',
      createApp({ database, alerts, rateLimits: { ...defaultRateLimits, ingestPerSecond: 0 }, logger }),
    );
    http.listen(0, '127.0.0.1');
    await once(http, 'listening');
    const { port } = http.address() as AddressInfo;
    const reply = await fetch(`http://127.0.0.1:${port}/api/auth/me`, {
      headers: { authorization: `Bearer session_${'a'.repeat(32)}`, 'x-request-id': 'trace-1' },
    });
    expect(reply.status).toBe(503);
    expect(reply.headers.get('x-request-id')).toBe('trace-1');
    const about = lines.filter((line) => line.msg === 'database unavailable');
    expect(about.length).toBeGreaterThan(0);
    for (const line of about) expect(line.requestId).toBe('trace-1');
  });
});
