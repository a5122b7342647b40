// A part of the write statement (one CTE): its name, the earlier parts it reads, the tables it writes, its query; and
// withParts, which joins parts into one WITH. The order is checked when the parts are joined, once per composition:
// statement.ts composes the write statement when it loads, and each call only puts its inputs in.
import { type RawBuilder, sql } from 'kysely';
import type { JsonbArray } from '../jsonb-array';

/** What a statement is given per call, each the parameter of the one part that reads it. */
export interface StatementInputs {
  /** The events' input rows (events.ts), one jsonb array. */
  rows: JsonbArray;
  /** The events received per app and hour of receipt, a JSON array (outcomes.ts). */
  receivedJson: string;
  /** The oldest hour an event still to come can bring (activity.ts). */
  keepFrom: number;
  /** The most (issue, user) pairs the statement claims (distinct-users.ts). */
  claims: number;
}

/** A part's query: the same for every call, or made from the call's inputs. */
type PartQuery = RawBuilder<unknown> | ((inputs: StatementInputs) => RawBuilder<unknown>);

export interface StatementPart {
  /** Its CTE's name, unique in the statement. */
  readonly name: string;
  /** The parts it reads, by name: each must come before it. */
  readonly reads: readonly string[];
  /** The tables it inserts into or updates (no part may be named like one, or it would hide it). */
  readonly writes: readonly string[];
  readonly query: PartQuery;
}

export const part = (declared: {
  name: string;
  reads?: readonly string[];
  writes?: readonly string[];
  query: PartQuery;
}): StatementPart => ({
  name: declared.name,
  reads: declared.reads ?? [],
  writes: declared.writes ?? [],
  query: declared.query,
});

/** What follows the parts: the statement's answer, and the parts it reads. */
export interface FinalQuery {
  readonly reads: readonly string[];
  readonly query: RawBuilder<unknown>;
}

/**
 * Throws unless every part reads only parts before it, no two parts share a name, no part is named like a table a
 * part writes, and the final query reads only parts.
 */
export function checkOrder(parts: readonly StatementPart[], final: Pick<FinalQuery, 'reads'>): void {
  const written = new Set(parts.flatMap((p) => p.writes));
  const before = new Set<string>();
  const all = new Set(parts.map((p) => p.name));
  for (const { name, reads } of parts) {
    if (before.has(name)) throw new Error(`write statement: two parts are named "${name}"`);
    if (written.has(name))
      throw new Error(`write statement: part "${name}" is named like a table the statement writes`);
    for (const read of reads) {
      if (before.has(read)) continue;
      throw new Error(
        all.has(read)
          ? `write statement: part "${name}" reads "${read}", which does not come before it`
          : `write statement: part "${name}" reads "${read}", which is no part of the statement`,
      );
    }
    before.add(name);
  }
  for (const read of final.reads) {
    if (!all.has(read)) throw new Error(`write statement: its final query reads "${read}", which is no part of it`);
  }
}

/**
 * `with <part>, <part>, ... <final>`, the order checked now: returns the statement for a call's inputs. Parts whose
 * query is the same for every call are named once, here. Exported so that a test can run some parts alone.
 */
export function withParts<R>(
  parts: readonly StatementPart[],
  final: FinalQuery,
  prefix = '',
): (inputs: StatementInputs) => RawBuilder<R> {
  checkOrder(parts, final);
  const named = parts.map(({ name, query }) =>
    typeof query === 'function'
      ? (inputs: StatementInputs) => sql`${sql.id(name)} as (${query(inputs)})`
      : sql`${sql.id(name)} as (${query})`,
  );
  const head = sql.raw(prefix);
  return (inputs) =>
    sql<R>`${head}with ${sql.join(
      named.map((cte) => (typeof cte === 'function' ? cte(inputs) : cte)),
      sql`,\n`,
    )}\n${final.query}`;
}
