// Sliding session expiry, driven through the procedures with createContextInner and a clock the test moves.
import { EventWriter, OutcomeCounter, openDatabase, storeFeedback } from '@collector/db';
import { testDatabaseUrl } from '@collector/db/testing';
import { sessionPolicy } from '@collector/domain';
import { afterAll, describe, expect, it } from 'vitest';
import { createContextInner, noAlertDelivery } from '../context';
import { sha256Hex } from '../ids';
import { IngestBudget } from '../ingestion/budget';
import { Ingestion } from '../ingestion/ingestion';
import { KnownApps } from '../known-apps';
import { createRateLimiters, defaultRateLimits } from '../rate-limiter';
import { appRouter } from '../router';
import { createCallerFactory } from '../trpc';

const database = await openDatabase({ url: await testDatabaseUrl() });
afterAll(() => database.close());

let now = Date.UTC(2026, 10, 1);
const createCaller = createCallerFactory(appRouter);
const callerAs = (authorization?: string) =>
  createCaller(
    createContextInner({
      db: database.db,
      clock: () => now,
      rateLimiters: createRateLimiters(defaultRateLimits, database.db),
      ingestion: new Ingestion({
        knownApps: new KnownApps(database.db),
        rateLimiter: null,
        writer: new EventWriter(database.db),
        outcomes: new OutcomeCounter(database.db),
        budget: new IngestBudget(1024 * 1024, { warn: () => undefined }),
        storeFeedback: (appKey, items, at) => storeFeedback(database.db, appKey, items, at),
        clock: () => now,
      }),
      alerts: noAlertDelivery,
      publicUrl: () => 'http://localhost:3100',
      authorization,
      clientAddress: '192.0.2.1',
      requestId: 'test',
    }),
  );

const storedExpiry = async (token: string) =>
  (
    await database.db
      .selectFrom('sessions')
      .select('expires_at')
      .where('id', '=', sha256Hex(token))
      .executeTakeFirstOrThrow()
  ).expires_at;

describe('session expiry', () => {
  it('slides forward on use, written back at most once a minute', async () => {
    const { token } = await callerAs().auth.register({
      email: `slide-${Math.random().toString(36).slice(2)}@example.com`,
      password: 'a long unusual passphrase',
    });
    const signedIn = callerAs(`Bearer ${token}`);
    const issued = await storedExpiry(token);
    expect(issued).toBe(now + sessionPolicy.idleMs);

    now += sessionPolicy.refreshAfterMs - 1_000;
    await signedIn.auth.me();
    expect(await storedExpiry(token)).toBe(issued);

    now += 2_000;
    await signedIn.auth.me();
    expect(await storedExpiry(token)).toBe(now + sessionPolicy.idleMs);

    now += sessionPolicy.idleMs;
    await expect(signedIn.auth.me()).rejects.toMatchObject({ cause: { code: 'UNAUTHENTICATED' } });
  });
});
