// Ingestion's entry point on a real database: which key gets in, what each refusal counts, what is stored. The HTTP
// adapters' own tests (services/collector/test/ingest.*, sentry.*, outcomes.test.ts) go through the wire formats.
import { randomBytes, randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  EventWriter,
  insertApp,
  insertUser,
  OutcomeCounter,
  openDatabase,
  outcomeTotals,
  storeFeedback,
} from '@collector/db';
import { testDatabaseUrl } from '@collector/db/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { toAppError } from '../errors';
import { KnownApps } from '../known-apps';
import { LeasedRateLimiter } from '../rate-limiter';
import { IngestBudget } from './budget';
import { Ingestion } from './ingestion';

const database = await openDatabase({ url: await testDatabaseUrl() });
const now = Date.UTC(2026, 10, 20, 12);
const outcomes = new OutcomeCounter(database.db);
afterAll(async () => {
  await outcomes.flush();
  await database.close();
});

function ingestion(rateLimiter: LeasedRateLimiter | null = null) {
  return new Ingestion({
    knownApps: new KnownApps(database.db),
    rateLimiter,
    writer: new EventWriter(database.db),
    outcomes,
    budget: new IngestBudget(1024 * 1024, { warn: () => undefined }),
    storeFeedback: (appKey, items, at) => storeFeedback(database.db, appKey, items, at),
    clock: () => now,
  });
}

async function newApp() {
  const userId = randomUUID();
  await insertUser(database.db, { id: userId, email: `${userId}@example.com`, passwordHash: 'x', createdAt: now });
  const publicKey = randomBytes(16).toString('hex');
  const row = await insertApp(database.db, {
    app_key: `web_${randomBytes(8).toString('hex')}`,
    user_id: userId,
    name: 'Shop',
    type: 'web',
    created_at: now,
    public_key: publicKey,
  });
  return { userId, appKey: row.app_key, projectId: String(row.project_id), publicKey };
}

async function counted(app: { userId: string; appKey: string }) {
  await outcomes.flush();
  const totals = await outcomeTotals(database.db, { userId: app.userId, appKey: app.appKey });
  return Object.fromEntries(totals.filter((total) => total.events > 0).map((total) => [total.reason, total.events]));
}

const event = (eventId: string, message = 'Checkout failed') => ({
  eventId,
  type: 'error',
  timestamp: now - 1000,
  message,
});

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) => toAppError(error).code,
  );

describe('Ingestion.ingest', () => {
  it('stores a batch once per eventId, lists invalid events, and counts each outcome once', async () => {
    const app = await newApp();
    const result = await ingestion().ingest(
      { appKey: app.appKey },
      {
        format: 'batch',
        events: [event(`evt_${randomUUID()}`), { type: 'error' }, event('evt_dup-1'), event('evt_dup-1')],
      },
    );
    expect(result.accepted).toBe(3);
    expect(result.duplicates).toBe(1);
    expect(result.rejected).toEqual([expect.objectContaining({ index: 1, code: 'VALIDATION_FAILED' })]);
    expect(await counted(app)).toEqual({ accepted: 2, duplicate: 1, invalid: 1 });
  });

  it('refuses an unknown appKey with 403 and counts nothing', async () => {
    expect(
      await codeOf(ingestion().ingest({ appKey: 'web_nobody' }, { format: 'batch', events: [event('evt_a')] })),
    ).toBe('UNKNOWN_APP_KEY');
  });

  it('counts every event of a rate-limited request as rate_limited', async () => {
    const app = await newApp();
    const limiter = new LeasedRateLimiter(
      { ratePerSecond: 1, burst: 50 },
      `ingestion-test-${randomUUID()}`,
      database.db,
    );
    const events = Array.from({ length: 60 }, () => event(`evt_${randomUUID()}`));
    expect(await codeOf(ingestion(limiter).ingest({ appKey: app.appKey }, { format: 'batch', events }))).toBe(
      'RATE_LIMITED',
    );
    expect(await counted(app)).toEqual({ rate_limited: 60 });
  });

  it("takes a Sentry event by its DSN, maps it, and counts the envelope's skipped items", async () => {
    const app = await newApp();
    const eventId = randomBytes(16).toString('hex');
    const result = await ingestion().ingest(
      { projectId: app.projectId, publicKey: app.publicKey },
      {
        format: 'sentry',
        events: [{ eventId, event: { event_id: eventId, message: 'from sentry', platform: 'node' } }],
        skippedItems: 2,
        feedback: [],
        clientDiscards: [],
      },
    );
    expect(result).toEqual({ accepted: 1, duplicates: 0, rejected: [] });
    const stored = await database.db
      .selectFrom('events')
      .select('payload')
      .where('app_key', '=', app.appKey)
      .where('event_id', '=', `evt_${eventId}`)
      .executeTakeFirstOrThrow();
    expect(stored.payload).toMatchObject({ eventId: `evt_${eventId}`, message: 'from sentry' });
    expect(await counted(app)).toEqual({ accepted: 1, unsupported: 2 });
  });

  it('refuses a DSN whose key or project does not match, naming the dsn', async () => {
    const app = await newApp();
    const other = await newApp();
    for (const key of [
      { projectId: app.projectId, publicKey: other.publicKey },
      { projectId: app.projectId, publicKey: undefined },
      { projectId: '0', publicKey: app.publicKey },
      { projectId: app.projectId, publicKey: 'not-hex' },
    ]) {
      const refused = await ingestion()
        .ingest(key, { format: 'sentry', events: [], skippedItems: 1, feedback: [], clientDiscards: [] })
        .catch(toAppError);
      expect(refused).toMatchObject({ code: 'UNKNOWN_APP_KEY', details: [{ path: 'dsn' }] });
    }
    expect(await counted(app)).toEqual({});
  });
});

describe('Ingestion while a request waits for its commit', () => {
  it('keeps none of its judged events alive (hundreds of requests wait at once under load)', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const app = await newApp();
    // A writer whose commit is held back: it reads the events at once, as EventWriter serialises them, and keeps only
    // a weak reference to one.
    let commit: (result: { duplicates: number }) => void = () => undefined;
    let judged: WeakRef<object> | undefined;
    const writer = {
      write: (batch: { events: readonly object[] }) => {
        judged = new WeakRef(batch.events[0] as object);
        return new Promise<{ duplicates: number }>((resolve) => {
          commit = resolve;
        });
      },
    } as unknown as EventWriter;
    const waiting = new Ingestion({
      knownApps: new KnownApps(database.db),
      rateLimiter: null,
      writer,
      outcomes,
      budget: new IngestBudget(1024 * 1024, { warn: () => undefined }),
      storeFeedback: async () => undefined,
      clock: () => now,
    }).ingest({ appKey: app.appKey }, { format: 'batch', events: [event(`evt_${randomUUID()}`)] });
    while (judged === undefined) await new Promise((resolve) => setTimeout(resolve, 1));
    for (let i = 0; i < 3 && judged.deref() !== undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      gc();
    }
    expect(judged.deref()).toBeUndefined();
    commit({ duplicates: 0 });
    expect(await waiting).toEqual({ accepted: 1, duplicates: 0, rejected: [] });
  });
});

describe('Ingestion.tooLarge', () => {
  it('counts one too_large event for a known app, and nothing for an unknown key or none', async () => {
    const app = await newApp();
    const taking = ingestion();
    taking.tooLarge({ appKey: app.appKey });
    taking.tooLarge(await taking.check({ projectId: app.projectId, publicKey: app.publicKey }));
    taking.tooLarge({ appKey: 'web_nobody' });
    taking.tooLarge(undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await counted(app)).toEqual({ too_large: 2 });
  });
});
