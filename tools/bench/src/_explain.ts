import { migrateToLatest, openDatabase, prepareBatch, sql } from '@collector/db';
import { HOUR, judgeEvent, limits } from '@collector/domain';
import { createEventSource } from '@collector/tool-kit';
import pg from 'pg';
import { receivedRows } from '../../../packages/db/src/write-path/outcomes';
import { storeStatement } from '../../../packages/db/src/write-path/statement';

const admin = new pg.Client('postgres://postgres@127.0.0.1:5432/postgres');
await admin.connect();
const name = `explain_${Date.now()}`;
await admin.query(`create database ${name}`);
const url = `postgres://postgres@127.0.0.1:5432/${name}`;
const h = await openDatabase({ url });
await migrateToLatest(h.db);
const c = new pg.Client(url);
await c.connect();
const now = Date.now();
await c.query(`INSERT INTO users (id, email, password_hash, created_at) VALUES ('u1', 'x@y.z', '-', $1)`, [now]);
await c.query(
  `INSERT INTO apps (app_key, user_id, name, type, created_at, public_key) VALUES ('app_x', 'u1', 'x', 'web', $1, md5('a'))`,
  [now],
);
await c.query(`INSERT INTO app_totals (app_key) VALUES ('app_x') ON CONFLICT DO NOTHING`).catch(() => {});
const source = createEventSource({});
const group = (n: number) => {
  const batches = Array.from({ length: n }, () => {
    const body = JSON.parse(source.batch('app_x'));
    const events = body.events
      .map((e: unknown) => judgeEvent(e, { appKey: 'app_x', receivedAt: Date.now() }))
      .filter((v: any) => v.ok)
      .map((v: any) => v.event);
    return prepareBatch({ appKey: 'app_x', events, receivedAt: Date.now() });
  });
  const rows = batches.map((b) => b.rowsJson.slice(1, -1));
  const keepFrom = Math.floor((Date.now() - limits.maxEventAgeMs) / HOUR) - 48;
  return storeStatement(`[${rows.join(',')}]`, JSON.stringify(receivedRows(batches)), keepFrom).compile(h.db);
};
for (let i = 0; i < 400; i++) {
  const q = group(4);
  await c.query(q.sql, q.parameters as unknown[]);
}
const runs = Number(process.argv[2] ?? 20);
let total = 0;
for (let i = 0; i < runs; i++) {
  const q = group(4);
  const t = performance.now();
  await c.query(q.sql, q.parameters as unknown[]);
  total += performance.now() - t;
}
console.log(
  `plain: ${(total / runs).toFixed(1)} ms per 200-event statement = ${((total / runs / 200) * 1000).toFixed(0)} µs/event`,
);
for (const mode of ['plain', 'prepared', 'plain', 'prepared']) {
  let t2 = 0;
  for (let i = 0; i < runs; i++) {
    const q = group(4);
    const t = performance.now();
    await c.query(
      mode === 'prepared'
        ? { name: 'w', text: q.sql, values: q.parameters as unknown[] }
        : { text: q.sql, values: q.parameters as unknown[] },
    );
    t2 += performance.now() - t;
  }
  console.log(
    `${mode}: ${(t2 / runs).toFixed(1)} ms per 200-event statement = ${((t2 / runs / 200) * 1000).toFixed(0)} µs/event`,
  );
}
const q = group(4);
const { rows } = await c.query(
  `explain (analyze, buffers, verbose off, costs off) ${q.sql}`,
  q.parameters as unknown[],
);
console.log(rows.map((r: any) => r['QUERY PLAN']).join('\n'));
await c.end();
await h.close();
await admin.query(`drop database ${name} with (force)`);
await admin.end();
