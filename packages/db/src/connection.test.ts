// The PostgreSQL handle when the server stops answering: bounded waits, and no connection reused after a timeout.
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from './connection';
import { classifyDatabaseError } from './database-errors';

/** A server that accepts TCP connections and never says a word, as a frozen (SIGSTOP) PostgreSQL does. */
async function silentServer() {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return {
    url: `postgres://postgres@127.0.0.1:${port}/none`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

const elapsed = async (run: () => Promise<unknown>) => {
  const started = performance.now();
  const error = await run().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  return { ms: performance.now() - started, error };
};

describe('PostgreSQL connection timeouts', () => {
  it('fails a query and the readiness ping within their timeouts when the server accepts but never answers', async () => {
    const server = await silentServer();
    afterAll(server.close);
    const database = await openDatabase({ url: server.url, timeouts: { connectMs: 300, pingMs: 200 } });
    afterAll(() => database.close());
    const query = await elapsed(() => sql`select 1`.execute(database.db));
    expect(query.ms).toBeLessThan(1_500);
    expect(classifyDatabaseError(query.error)).toBe('unavailable');
    const ping = await elapsed(() => database.ping());
    expect(ping.ms).toBeLessThan(1_500);
    expect(classifyDatabaseError(ping.error)).toBe('unavailable');
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('PostgreSQL connections after a fault', () => {
  /** A pool of one connection to the test database, so the next query gets the client the last one used. */
  const oneConnection = async (timeouts: { queryMs: number; statementMs: number }) => {
    const database = await openDatabase({ url: process.env.TEST_DATABASE_URL, maxConnections: 1, timeouts });
    afterAll(() => database.close());
    return database;
  };

  it('destroys a connection whose query timed out on the client, so the next query does not wait behind it', async () => {
    // One connection: without the fix the pool hands the same, still busy client to the next query.
    const database = await oneConnection({ queryMs: 300, statementMs: 10_000 });
    const hung = await elapsed(() => sql`select pg_sleep(3)`.execute(database.db));
    expect((hung.error as Error).message).toMatch(/Query read timeout/);
    expect(hung.ms).toBeLessThan(1_500);
    const next = await elapsed(() => sql`select 1 as one`.execute(database.db));
    expect(next.error).toBeUndefined();
    expect(next.ms).toBeLessThan(1_000);
  });

  it('keeps a connection whose statement the server cancelled (statement_timeout): it is still usable', async () => {
    const database = await oneConnection({ statementMs: 200, queryMs: 5_000 });
    const before = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(database.db);
    const cancelled = await elapsed(() => sql`select pg_sleep(3)`.execute(database.db));
    expect((cancelled.error as { code?: string }).code).toBe('57014');
    expect(classifyDatabaseError(cancelled.error)).toBe('unavailable');
    const after = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(database.db);
    expect(after.rows[0]?.pid).toBe(before.rows[0]?.pid);
  });

  it('names its connections, so an operator (or the fault tests) can find them in pg_stat_activity', async () => {
    const database = await openDatabase({ url: process.env.TEST_DATABASE_URL });
    afterAll(() => database.close());
    const { rows } = await sql<{ name: string }>`select current_setting('application_name') as name`.execute(
      database.db,
    );
    expect(rows[0]?.name).toBe('collector');
  });

  it('turns JIT off, unless the URL’s own options say otherwise', async () => {
    const jitOf = async (url: string) => {
      const database = await openDatabase({ url });
      try {
        const { rows } = await sql<{ jit: string }>`select current_setting('jit') as jit`.execute(database.db);
        return rows[0]?.jit;
      } finally {
        await database.close();
      }
    };
    const url = new URL(process.env.TEST_DATABASE_URL as string);
    expect(await jitOf(url.toString())).toBe('off');
    url.searchParams.set('options', '-c jit=on');
    expect(await jitOf(url.toString())).toBe('on');
  });
});
