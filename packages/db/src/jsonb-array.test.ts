// A JsonbArray reaches PostgreSQL as the array of its elements, through node-pg (jsonb's binary form, from one reused
// buffer) and through PGlite (its text), whatever the elements hold.
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../test/database';
import { openDatabase } from './connection';
import { JsonbArray } from './jsonb-array';

const values = [
  { text: 'plain' },
  { text: 'ünïcödé, 日本語, emoji 🎉, "quotes", back\\slash, tab\t' },
  [1, 2.5, null, true],
  'a string',
  {},
];
const array = new JsonbArray(values.map((value) => JSON.stringify(value)));

describe('JsonbArray', () => {
  it('is the JSON array of its elements as text, [] when empty', () => {
    expect(JSON.parse(array.toString())).toEqual(values);
    expect(new JsonbArray([]).toString()).toBe('[]');
  });

  it('reaches PostgreSQL through node-pg as that array, empty or not', async () => {
    const database = await openDatabase({ url: await testDatabaseUrl() });
    afterAll(() => database.close());
    const read = async (input: JsonbArray) =>
      (await sql<{ value: unknown }>`select ${input}::jsonb as value`.execute(database.db)).rows[0]?.value;
    expect(await read(array)).toEqual(values);
    expect(await read(new JsonbArray([]))).toEqual([]);
    // Past the reused buffer's first size, which then grows.
    const many = Array.from({ length: 5_000 }, (_, i) => JSON.stringify({ i, text: 'x'.repeat(100) }));
    expect(await read(new JsonbArray(many))).toHaveLength(5_000);
  });

  // The buffer is shared by every statement: node-pg must copy the value into its message when the statement is sent,
  // never keep it for later. A client's queries wait in its queue while one runs; each still gets its own rows.
  it('keeps queued statements apart on one connection, though they share one buffer', async () => {
    const client = new pg.Client({ connectionString: await testDatabaseUrl() });
    await client.connect();
    afterAll(() => client.end());
    const running = client.query('select pg_sleep(0.05)');
    const queued = ['first', 'second', 'third'].map((name) =>
      client.query<{ value: unknown }>('select $1::jsonb as value', [
        new JsonbArray([JSON.stringify(name), JSON.stringify(name.repeat(20))]),
      ]),
    );
    await running;
    expect((await Promise.all(queued)).map(({ rows }) => rows[0]?.value)).toEqual([
      ['first', 'first'.repeat(20)],
      ['second', 'second'.repeat(20)],
      ['third', 'third'.repeat(20)],
    ]);
  });

  it('reaches PGlite as that array, while other jsonb values keep PGlite’s own form', async () => {
    const database = await openDatabase({ dataDir: 'memory://' });
    afterAll(() => database.close());
    const { rows } = await sql<{ rows: unknown; other: unknown; big: unknown }>`select ${array}::jsonb as rows,
      ${JSON.stringify({ a: 1 })}::jsonb as other, ${{ b: 2n }}::jsonb as big`.execute(database.db);
    expect(rows[0]).toEqual({ rows: values, other: { a: 1 }, big: { b: '2' } });
  });
});
