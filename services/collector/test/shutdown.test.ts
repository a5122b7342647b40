// Graceful shutdown of the real service, started as `pnpm start` would: on SIGTERM it stops taking connections,
// finishes the batches in flight (even ones whose body is still arriving), answers them, commits them, exits 0.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, startEmbeddedPostgres } from '@collector/db';
import { afterAll, describe, expect, it } from 'vitest';
import { makeEvents, PASSWORD, startService } from './harness';

const databaseUrl = process.env.TEST_DATABASE_URL || undefined;

async function post(url: string, path: string, body: unknown, token?: string) {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

interface InFlight {
  /** Resolves once the service has read the request's headers (it answered `100 Continue`): from then on it is the service's. */
  started: Promise<void>;
  /** Sends the body, or for a held request the second half of it. */
  finish(): void;
  reply: Promise<{ status: number; body: any }>;
}

/**
 * A batch on its own connection, sent with `Expect: 100-continue` so the test knows when the service has taken it up.
 * Without `hold` the body goes as soon as the service asks for it; with `hold`, only half of it until `finish()`.
 */
function sendBatch(url: string, body: string, hold: boolean): InFlight {
  const { hostname, port } = new URL(url);
  const bytes = Buffer.from(body);
  const half = Math.floor(bytes.length / 2);
  const req = request({
    host: hostname,
    port,
    method: 'POST',
    path: '/api/events/batch',
    agent: false,
    headers: { 'content-type': 'application/json', 'content-length': bytes.length, expect: '100-continue' },
  });
  const started = new Promise<void>((resolve) => req.once('continue', resolve));
  void started.then(() => (hold ? req.write(bytes.subarray(0, half)) : req.end(bytes)));
  const reply = new Promise<{ status: number; body: any }>((resolve, reject) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }),
      );
    });
    req.on('error', reject);
  });
  req.flushHeaders();
  return { started, finish: () => hold && req.end(bytes.subarray(half)), reply };
}

const connectOutcome = (url: string) =>
  new Promise<string>((resolve) => {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname);
    socket.on('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });

/** Once the listener is closed connections are refused; how soon after the signal is up to the scheduler. */
async function refusesConnectionsSoon(url: string, withinMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if ((await connectOutcome(url)) === 'ECONNREFUSED') return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

const dataDir = mkdtempSync(join(tmpdir(), 'collector-shutdown-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('graceful shutdown', () => {
  it('on SIGTERM answers and commits every batch in flight, refuses new connections and exits 0', async () => {
    const service = await startService(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: dataDir });
    try {
      const registered = await post(service.url, '/api/auth/register', {
        email: `shutdown-${randomUUID()}@example.com`,
        password: PASSWORD,
      });
      expect(registered.status).toBe(201);
      const created = await post(service.url, '/api/apps', { name: 'Shutdown', type: 'web' }, registered.body.token);
      expect(created.status).toBe(201);
      const appKey: string = created.body.app.appKey;

      // Half the batches are sent whole (being processed at SIGTERM), half are held mid-upload.
      const batches = Array.from({ length: 24 }, (_, i) => ({
        hold: i % 2 === 1,
        body: JSON.stringify({ appKey, events: makeEvents(50) }),
      }));
      const inFlight = batches.map(({ body, hold }) => sendBatch(service.url, body, hold));
      // Every request has been taken up by the service before the signal: they are all in flight.
      await Promise.all(inFlight.map((each) => each.started));
      const settled = inFlight.map(() => false);
      inFlight.forEach((each, i) => void each.reply.finally(() => (settled[i] = true)).catch(() => undefined));
      await new Promise((resolve) => setImmediate(resolve));
      const settledAtSignal = [...settled];

      service.child.kill('SIGTERM');
      await service.waitFor(/SIGTERM: finishing in-flight requests/);
      // The listener closes: new connections are refused while the old ones are still being served.
      expect(await refusesConnectionsSoon(service.url)).toBe(true);
      for (const each of inFlight) each.finish();

      const replies = await Promise.all(inFlight.map((each) => each.reply));
      for (const reply of replies) {
        expect(reply.status, JSON.stringify(reply.body)).toBe(200);
        expect(reply.body).toEqual({ accepted: 50, duplicates: 0, rejected: [] });
      }
      // The held half was still in flight when the signal came: their bodies were not even complete.
      expect(batches.filter((each, i) => each.hold && settledAtSignal[i])).toEqual([]);

      expect(await service.exit).toEqual({ code: 0, signal: null });
      expect(service.output.some((line) => line.includes('"msg":"stopped"'))).toBe(true);

      // Nothing accepted is lost: the database, opened again after the process has gone, holds every event.
      const accepted = replies.reduce((sum, reply) => sum + (reply.body.accepted as number), 0);
      // On the embedded default that is the collector's own server, started again on the same folder.
      const embedded = databaseUrl ? undefined : await startEmbeddedPostgres({ dataDir });
      const database = await openDatabase({ url: databaseUrl ?? embedded?.url });
      try {
        const row = await database.db
          .selectFrom('events')
          .select((eb) => eb.fn.countAll<number>().as('stored'))
          .where('app_key', '=', appKey)
          .executeTakeFirstOrThrow();
        expect(Number(row.stored)).toBe(accepted);
        expect(accepted).toBe(24 * 50);
      } finally {
        await database.close();
        await embedded?.stop();
      }
    } finally {
      if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL');
    }
  }, 120_000);
});
