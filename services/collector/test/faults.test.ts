// Database faults, CI-sized: the service's PostgreSQL connections are terminated under light ingestion load. Only 200
// and 503 (with Retry-After) come back, ingestion recovers at once, and every accepted event is stored exactly once.
// Needs PostgreSQL (TEST_DATABASE_URL); stopping and freezing a server are `pnpm faults`, on a cluster of its own.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase, sql } from '@collector/db';
import { type Answer, createAccountWithApps, postBatch } from '@collector/tool-kit';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger';
import { startServer } from '../src/server';
import { makeEvents } from './harness';

const databaseUrl = process.env.TEST_DATABASE_URL;

describe.runIf(databaseUrl)('database faults (PostgreSQL)', () => {
  it('answers 200 or 503 with Retry-After while its connections are terminated, recovers at once and loses nothing', async () => {
    // Its own application_name, so that only this server's sessions are terminated, not those of other test files.
    const applicationName = `collector_faults_${randomUUID().slice(0, 8)}`;
    const url = new URL(databaseUrl as string);
    url.searchParams.set('application_name', applicationName);
    const server = await startServer({
      port: 0,
      host: '127.0.0.1',
      databaseUrl: url.href,
      rateLimits: { ingestPerSecond: 0 },
      logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
    });
    afterAll(() => server.stop());
    const admin = await openDatabase({ url: databaseUrl });
    afterAll(() => admin.close());
    const origin = server.url.replace('localhost', '127.0.0.1');
    const [appKey] = (await createAccountWithApps(origin, ['Faults'])) as [string];

    // Three clients, five-event batches; a refused batch is sent again with the same eventIds, as an SDK does.
    const answers: Answer[] = [];
    let stopping = false;
    let batches = 0;
    const client = async () => {
      while (!stopping) {
        const batch = batches++;
        const events = makeEvents(5);
        const body = JSON.stringify({ appKey, events });
        for (let attempt = 1; ; attempt++) {
          const answer = await postBatch(origin, body, { batch, attempt, events: events.length }, 30_000);
          answers.push(answer);
          if (answer.status !== 503) break;
          await sleep(50);
        }
        await sleep(20);
      }
    };
    const load = Array.from({ length: 3 }, () => client());

    const terminate = async () => {
      const { rows } = await sql<{ n: number }>`
        select count(*) filter (where pg_terminate_backend(pid)) as n from pg_stat_activity where application_name = ${applicationName}`.execute(
        admin.db,
      );
      return { at: performance.now(), count: Number(rows[0]?.n) };
    };
    await sleep(1_500);
    const first = await terminate();
    await sleep(1_500);
    const second = await terminate();
    await sleep(2_000);
    stopping = true;
    await Promise.all(load);

    expect(first.count + second.count).toBeGreaterThan(0);
    expect(answers.filter((a) => a.status !== 200 && a.status !== 503)).toEqual([]);
    for (const refused of answers.filter((a) => a.status === 503)) {
      expect(refused.code).toBe('UNAVAILABLE');
      expect(refused.retryAfter).toMatch(/^[1-9]\d*$/);
    }
    expect(Math.max(...answers.map((a) => a.answeredAt - a.sentAt))).toBeLessThan(5_000);
    for (const fault of [first, second]) {
      const recovered = answers.find((a) => a.sentAt >= fault.at && a.status === 200);
      expect(recovered, 'a 200 after the fault').toBeDefined();
      expect((recovered as Answer).answeredAt - fault.at).toBeLessThan(5_000);
    }
    expect((await fetch(`${origin}/readyz`)).status).toBe(200);

    const ok = answers.filter((a) => a.status === 200);
    const accepted = ok.reduce((sum, a) => sum + a.accepted, 0);
    expect(new Set(ok.map((a) => a.batch)).size).toBe(batches);
    expect(accepted).toBe(batches * 5);
    const count = async (query: { execute(db: typeof admin.db): Promise<{ rows: { n: number }[] }> }) =>
      Number((await query.execute(admin.db)).rows[0]?.n);
    const stored = await count(sql<{ n: number }>`select count(*) as n from events where app_key = ${appKey}`);
    expect(stored).toBe(accepted);
    expect(await count(sql<{ n: number }>`select events as n from app_totals where app_key = ${appKey}`)).toBe(stored);
    expect(
      await count(
        sql<{ n: number }>`select coalesce(sum(event_count), 0) as n from issues_live where app_key = ${appKey}`,
      ),
    ).toBe(stored);
    expect(
      await count(sql<{ n: number }>`select coalesce(sum(events), 0) as n from app_hourly where app_key = ${appKey}`),
    ).toBe(stored);
  });
});
