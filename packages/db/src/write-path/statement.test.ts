// The write statement's order, without a database: withParts refuses parts that read a part not before them (or none),
// repeated names and names that would hide a written table; the real statement passes, and each of its parts declares
// exactly the parts its SQL reads and the tables it writes.
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { JsonbArray } from '../jsonb-array';
import { checkOrder, part, withParts } from './part';
import { statementAnswer, statementParts, storeStatement } from './statement';

const db = new Kysely<unknown>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});
const inputs = { rows: new JsonbArray([]), receivedJson: '[]', keepFrom: 0, claims: 64 };
const answer = (...reads: string[]) => ({ reads, query: sql`select 1` });

const a = part({ name: 'a', query: sql`select 1` });
const b = part({ name: 'b', reads: ['a'], writes: ['things'], query: sql`insert into things select * from a` });

describe('the write statement’s order', () => {
  it('takes parts that read only parts before them', () => {
    expect(withParts([a, b], answer('a', 'b'))(inputs).compile(db).sql).toBe(
      'with "a" as (select 1),\n"b" as (insert into things select * from a)\nselect 1',
    );
  });

  it('refuses a part that reads a part after it, itself or no part, when the statement is composed', () => {
    expect(() => withParts([b, a], answer())).toThrow('part "b" reads "a", which does not come before it');
    const self = part({ name: 'c', reads: ['c'], query: sql`select 1` });
    expect(() => withParts([a, self], answer())).toThrow('part "c" reads "c", which does not come before it');
    const stray = part({ name: 'c', reads: ['nowhere'], query: sql`select 1` });
    expect(() => withParts([a, stray], answer())).toThrow(
      'part "c" reads "nowhere", which is no part of the statement',
    );
    expect(() => withParts([a], answer('b'))).toThrow('its final query reads "b", which is no part of it');
  });

  it('refuses two parts of one name, and a part named like a table the statement writes', () => {
    expect(() => checkOrder([a, a], answer())).toThrow('two parts are named "a"');
    const hiding = part({ name: 'things', query: sql`select 1` });
    expect(() => checkOrder([a, b, hiding], answer())).toThrow(
      'part "things" is named like a table the statement writes',
    );
  });

  it('passes the real statement', () => {
    expect(() => checkOrder(statementParts, statementAnswer)).not.toThrow();
    expect(storeStatement(new JsonbArray([]), '[]', 0).compile(db).sql).toMatch(
      /^\/\* prepared \*\/ with "input_events" as \(/,
    );
  });

  it('has each real part declare the parts its SQL reads and the tables it writes', () => {
    const names = statementParts.map((p) => p.name);
    const mentioned = (text: string) => names.filter((name) => new RegExp(`\\b${name}\\b`).test(text));
    const written = (text: string) =>
      [...text.matchAll(/\binsert into "?(\w+)"?|(?<!\bdo )\bupdate "?(\w+)"?/g)].map((m) => m[1] ?? m[2]);
    for (const { name, reads, writes, query } of statementParts) {
      const text = (typeof query === 'function' ? query(inputs) : query).compile(db).sql;
      expect({ name, reads: [...reads].sort() }).toEqual({ name, reads: mentioned(text).sort() });
      expect({ name, writes: [...new Set(writes)].sort() }).toEqual({
        name,
        writes: [...new Set(written(text))].sort(),
      });
    }
    expect([...statementAnswer.reads].sort()).toEqual(mentioned(statementAnswer.query.compile(db).sql).sort());
  });
});
