// The bare baseline the collector is measured against: node:http and one SQL statement per batch, nothing else. No
// framework, no validation, no app lookup, no per-user counters. It parses the JSON batch, derives a cheap issue key,
// and writes the events plus the issue counters with ONE statement (autocommit), answering after that commit.
//
// Run as a child process by main.ts:
//   PORT=... HOST=127.0.0.1 APP_KEY=... (DATABASE_URL=postgres://... [POOL_SIZE=10] | DATA_DIR=/tmp/...) node --import tsx src/baseline.ts
// With WORKERS=N (PostgreSQL only), N such processes share the port through node:cluster, as the collector's WORKERS=N:
// the primary prepares the database and serves nothing (workers.ts compares the two at the same N).
// The schema is the collector's own (its migrations), so both servers write the same tables and indexes.
import cluster from 'node:cluster';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { migrateToLatest, openDatabase } from '@collector/db';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { type RawEvent, toRows } from './baseline-columns';

// One statement, prepared once per connection (parsed and planned once, as the collector's is): read the rows, claim
// the event ids (duplicates skipped: events is partitioned by day and keeps no unique key, so event_ids deduplicates,
// as in the collector), insert the events claimed, upsert the issues of the rows actually inserted (in fingerprint
// order, so concurrent batches lock issue rows in one order), report how many were stored.
const INSERT_BATCH = `
WITH src AS (
  SELECT * FROM jsonb_to_recordset($3::jsonb)
    AS e(event_id text, fingerprint text, type text, ts int8, anonymous_id text, message text, error_type text, payload jsonb)
), ids AS (
  INSERT INTO event_ids (app_key, event_id, day)
  SELECT $1, event_id, (ts / 86400000)::int4 FROM src
  ON CONFLICT DO NOTHING
  RETURNING event_id
), ins AS (
  INSERT INTO events (app_key, event_id, fingerprint, type, timestamp, received_at, anonymous_id, payload)
  SELECT DISTINCT ON (event_id) $1, event_id, fingerprint, type, ts, $2, anonymous_id, payload FROM src JOIN ids USING (event_id)
  RETURNING event_id
), up AS (
  INSERT INTO issues (app_key, fingerprint, message, error_type, event_count, user_count, first_seen_at, last_seen_at)
  SELECT $1, s.fingerprint, min(s.message), min(s.error_type), count(*), 0, min(s.ts), max(s.ts)
  FROM src s JOIN ins USING (event_id)
  GROUP BY s.fingerprint
  ORDER BY s.fingerprint
  ON CONFLICT (app_key, fingerprint) DO UPDATE SET
    event_count = issues.event_count + excluded.event_count,
    first_seen_at = least(issues.first_seen_at, excluded.first_seen_at),
    last_seen_at = greatest(issues.last_seen_at, excluded.last_seen_at)
)
SELECT count(*)::int AS stored FROM ins`;

/** `name`: prepared once per connection under it (pg; PGlite runs every statement unnamed). */
type Query = (text: string, params: unknown[], name?: string) => Promise<{ rows: Record<string, unknown>[] }>;

async function openStore(appKey: string, prepare: boolean): Promise<{ query: Query; close(): Promise<void> }> {
  const url = process.env.DATABASE_URL;
  const dataDir = process.env.DATA_DIR;
  // Same schema as the collector's: its migrations, then the app row the events reference.
  if (prepare) {
    const migrating = await openDatabase(url ? { url } : { dataDir });
    await migrateToLatest(migrating.db);
    await migrating.close();
  }

  let query: Query;
  let close: () => Promise<void>;
  if (url) {
    const pool = new pg.Pool({ connectionString: url, max: Number(process.env.POOL_SIZE ?? 10) });
    query = (text, params, name) => pool.query(name ? { name, text, values: params } : { text, values: params });
    close = () => pool.end();
  } else {
    const db = await PGlite.create(dataDir as string);
    query = (text, params) => db.query(text, params) as Promise<{ rows: Record<string, unknown>[] }>;
    close = () => db.close();
  }
  const now = Date.now();
  await query(
    `INSERT INTO users (id, email, password_hash, created_at) VALUES ('usr_baseline', 'baseline@bench.invalid', '-', $1) ON CONFLICT DO NOTHING`,
    [now],
  );
  await query(
    `INSERT INTO apps (app_key, user_id, name, type, created_at, public_key) VALUES ($1, 'usr_baseline', 'baseline', 'web', $2, md5($1)) ON CONFLICT DO NOTHING`,
    [appKey, now],
  );
  await query(`INSERT INTO app_totals_folded (app_key) VALUES ($1) ON CONFLICT DO NOTHING`, [appKey]);
  return { query, close };
}

function send(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function main() {
  const appKey = process.env.APP_KEY ?? 'app_baseline';
  const workers = Number(process.env.WORKERS ?? 1);
  if (workers > 1 && cluster.isPrimary) {
    await (await openStore(appKey, true)).close();
    for (let i = 0; i < workers; i++) cluster.fork();
    const stop = () => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
      cluster.on('exit', () => {
        if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      });
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    return;
  }
  const store = await openStore(appKey, cluster.isPrimary);

  const ingest = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let batch: { appKey: string; events: RawEvent[] };
    try {
      batch = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return send(res, 400, { error: { code: 'INVALID_JSON', message: 'body is not JSON' } });
    }
    const receivedAt = Date.now();
    const { rows } = await store.query(
      INSERT_BATCH,
      [batch.appKey, receivedAt, toRows(batch.events)],
      'baseline_insert',
    );
    const stored = (rows[0]?.stored as number) ?? 0;
    send(res, 200, { accepted: batch.events.length, duplicates: batch.events.length - stored, rejected: [] });
  };

  const server = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/api/events/batch') {
      ingest(req, res).catch((error: Error) => {
        console.error(error);
        if (!res.headersSent) send(res, 500, { error: { code: 'INTERNAL', message: error.message } });
      });
    } else if (req.url === '/readyz') {
      send(res, 200, { status: 'ready' });
    } else {
      send(res, 404, { error: { code: 'NOT_FOUND', message: 'no such route' } });
    }
  });
  server.listen(Number(process.env.PORT ?? 3200), process.env.HOST ?? '127.0.0.1');

  const stop = () => {
    server.close(() => {
      store.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
