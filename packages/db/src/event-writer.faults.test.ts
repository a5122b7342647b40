// Group commit when the database goes away: statements answered (or failed) by hand through a scripted Kysely driver.
import type { StoredEvent } from '@collector/domain';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
} from 'kysely';
import { describe, expect, it } from 'vitest';
import { EventWriter } from './event-writer';
import type { Database } from './schema';

interface Statement {
  parameters: readonly unknown[];
  /** Answers as PostgreSQL would: every event of the statement newly stored. */
  succeed(): void;
  fail(error: unknown): void;
}

/** Each statement waits until the test answers it. */
function scriptedDatabase() {
  const statements: Statement[] = [];
  const connection: DatabaseConnection = {
    executeQuery: <R>(query: CompiledQuery) =>
      new Promise<QueryResult<R>>((resolve, reject) => {
        statements.push({
          parameters: query.parameters,
          succeed: () => {
            // Every event is new: the statement returns each row of its input (one JSON array, the first parameter).
            const rows = JSON.parse(String(query.parameters[0])) as { app_key: string; event_id: string }[];
            resolve({ rows: rows.map(({ app_key, event_id }) => ({ app_key, event_id })) as R[] });
          },
          fail: reject,
        });
      }),
    streamQuery: () => {
      throw new Error('not used');
    },
  };
  const driver: Driver = {
    init: async () => {},
    acquireConnection: async () => connection,
    beginTransaction: async () => {},
    commitTransaction: async () => {},
    rollbackTransaction: async () => {},
    releaseConnection: async () => {},
    destroy: async () => {},
  };
  const db = new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => driver,
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
  return { db, statements };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 10));
const event = (id: string): StoredEvent => ({
  eventId: `evt_${id}`,
  appKey: 'web_app',
  type: 'error',
  timestamp: 1,
  fingerprint: 'js:f',
  message: 'boom',
});
const batch = (id: string) => ({ appKey: 'web_app', events: [event(id)], receivedAt: 1 });
const outcome = (promise: Promise<unknown>) =>
  promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );

/**
 * An EventWriter on a scripted database, and `send`: it writes a batch of one event, and gives its outcome. Every
 * batch may start a statement while fewer than `concurrency` are in flight (overlapAt 1), so one-event batches overlap.
 */
function scriptedWriter(concurrency: number) {
  const { db, statements } = scriptedDatabase();
  const writer = new EventWriter(db, { concurrency, overlapAt: 1 });
  const send = (id: string) => outcome(writer.write(batch(id)));
  return { writer, statements, send };
}

describe('EventWriter when the database is unavailable', () => {
  it('fails the batches queued behind a statement that lost its connection at once, with the same error', async () => {
    const { writer, statements, send } = scriptedWriter(1);
    const writes = ['a', 'b', 'c'].map(send);
    await settle();
    expect(statements).toHaveLength(1);
    expect(writer.waiting).toBe(2);
    const lost = new Error('Connection terminated unexpectedly');
    statements[0]?.fail(lost);
    expect(await Promise.all(writes)).toEqual([{ error: lost }, { error: lost }, { error: lost }]);
    // The queued batches were never sent to the dead database.
    expect(statements).toHaveLength(1);
    expect(writer.waiting).toBe(0);
  });

  it('treats timeouts, refused connections and shutdown messages alike', async () => {
    const failures = [
      new Error('Query read timeout'),
      new Error('timeout exceeded when trying to connect'),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }),
    ];
    for (const failure of failures) {
      const { statements, send } = scriptedWriter(1);
      const writes = ['a', 'b'].map(send);
      await settle();
      statements[0]?.fail(failure);
      expect(await Promise.all(writes)).toEqual([{ error: failure }, { error: failure }]);
      expect(statements).toHaveLength(1);
    }
  });

  it('takes new batches again after the failure, and answers them once the database is back', async () => {
    const { writer, statements, send } = scriptedWriter(1);
    const failed = send('a');
    await settle();
    statements[0]?.fail(new Error('Connection terminated unexpectedly'));
    expect(await failed).toHaveProperty('error');
    const next = writer.write(batch('b'));
    await settle();
    expect(statements).toHaveLength(2);
    statements[1]?.succeed();
    expect(await next).toMatchObject({ stored: 1, duplicates: 0 });
  });

  it('leaves a statement still in flight alone: only the queue fails with the one that lost the database', async () => {
    const { writer, statements, send } = scriptedWriter(2);
    const first = send('a');
    const second = send('b');
    await settle();
    const queued = send('c');
    expect(statements).toHaveLength(2);
    expect(writer.waiting).toBe(1);
    const lost = new Error('Query read timeout');
    statements[0]?.fail(lost);
    expect(await first).toEqual({ error: lost });
    expect(await queued).toEqual({ error: lost });
    statements[1]?.succeed();
    expect(await second).toMatchObject({ value: { stored: 1, duplicates: 0 } });
    expect(statements).toHaveLength(2);
  });

  it('still sends the queue on when a statement fails for another reason', async () => {
    const { statements, send } = scriptedWriter(1);
    const first = send('a');
    const queued = send('b');
    await settle();
    const bug = Object.assign(new Error('relation "events" does not exist'), { code: '42P01' });
    statements[0]?.fail(bug);
    expect(await first).toEqual({ error: bug });
    await settle();
    expect(statements).toHaveLength(2);
    statements[1]?.succeed();
    expect(await queued).toMatchObject({ value: { stored: 1, duplicates: 0 } });
  });
});
