// WORKERS=2: two collector processes on one port and one database behave as one service: a session made through one
// works on the other, and an app's ingestion limit holds for both together (within 10%), not twice over.
import { execFileSync } from 'node:child_process';
import { testDatabaseUrl } from '@collector/db/testing';
import { describe, expect, it } from 'vitest';
import { makeEvents, PASSWORD, startService, uniqueEmail } from './harness';

const RATE = 100;
const BURST = 100;
const BATCH = 10;

async function post(origin: string, path: string, body: unknown, token?: string) {
  // A new connection each time (no keep-alive), so that the cluster spreads requests over both workers.
  const response = await fetch(`${origin}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      connection: 'close',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe('two collector processes on one database', () => {
  it('share sessions, and hold one ingestion limit per app across both', async () => {
    const service = await startService({
      DATABASE_URL: await testDatabaseUrl(),
      WORKERS: '2',
      INGEST_RATE_LIMIT: String(RATE),
      INGEST_RATE_BURST: String(BURST),
    });
    try {
      // The primary's node children (under tsx an esbuild process is a child too).
      const workers = execFileSync('pgrep', ['-P', String(service.child.pid), '-f', 'main.ts'], { encoding: 'utf8' })
        .trim()
        .split('\n');
      expect(workers).toHaveLength(2);

      const email = uniqueEmail();
      const { body: registered } = await post(service.url, '/api/auth/register', { email, password: PASSWORD });
      // Twenty requests on new connections reach both workers; every one knows the session.
      const apps = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          post(service.url, '/api/apps', { name: `App ${i}`, type: 'web' }, registered.token),
        ),
      );
      expect(apps.map((reply) => reply.status)).toEqual(Array(20).fill(201));
      const appKey: string = apps[0]?.body.app.appKey;

      // Eight clients send as fast as they are answered for 5 s; both workers take batches for the same app.
      let accepted = 0;
      let limited = 0;
      const started = performance.now();
      const until = started + 5_000;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (performance.now() < until) {
            const reply = await post(service.url, '/api/events/batch', {
              appKey,
              events: makeEvents(BATCH),
            });
            if (reply.status === 200) accepted += reply.body.accepted;
            else if (reply.status === 429) limited++;
            else throw new Error(`unexpected ${reply.status} ${JSON.stringify(reply.body)}`);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      const allowed = BURST + RATE * seconds;
      const figures = `${accepted} events accepted in ${seconds.toFixed(2)} s, ${allowed.toFixed(0)} allowed`;
      console.log(`two workers, one limit: ${figures}`);
      expect(limited, figures).toBeGreaterThan(0);
      // Never over the one bucket, and within 10% under it.
      expect(accepted, figures).toBeLessThanOrEqual(allowed + BATCH);
      expect(accepted, figures).toBeGreaterThanOrEqual(0.9 * allowed - BATCH);
    } finally {
      service.child.kill('SIGTERM');
      expect(await service.exit).toEqual({ code: 0, signal: null });
    }
  }, 120_000);
});
