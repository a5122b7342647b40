// The write statement's plan for one event, on a database whose issue_facets is large and analysed: the facets part
// must read the table only by index probes (its own for release, environment and handled; the insert's conflict check
// for tags). Its anti-join did not (a merge join that sorted every facet row in every statement, ~1 ms at 750 rows and
// growing with the table: docs/performance.md, issue 23).
import { CompiledQuery, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { JsonbArray } from '../jsonb-array';
import { prepareBatch } from './batch';
import { receivedRows } from './outcomes';
import { storeStatement } from './statement';
import { batch, errorEvent, openWritePathDatabase } from './testing';

const { db, newAccount, store } = await openWritePathDatabase('plan');

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Cond'?: string;
  'Total Cost'?: number;
  Plans?: PlanNode[];
}

const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

/** The write statement's plan (EXPLAIN, not run) for these input rows and received counts. */
async function planOf(input: JsonbArray, receivedJson: string): Promise<PlanNode> {
  const compiled = storeStatement(input, receivedJson, 0).compile(db);
  const { rows } = await db.executeQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
    CompiledQuery.raw(`explain (format json) ${compiled.sql}`, [...compiled.parameters]),
  );
  return rows[0]?.['QUERY PLAN'][0].Plan as PlanNode;
}

describe('the write statement’s plan', () => {
  it('reads issue_facets only by index probes, however large the table', async () => {
    const { newApp } = await newAccount();
    const appKey = await newApp();
    const tagged = (eventId: string) =>
      errorEvent(appKey, eventId, {
        release: '1.0.0',
        environment: 'production',
        tags: { tier: 'pro', page: '/cart' },
      });
    await store(batch(appKey, [tagged('first')]));
    await sql`insert into issue_facets (app_key, facet, value, fingerprint)
      select ${appKey}, 'tag:n', 'v' || n, 'f' || n from generate_series(1, 20000) n`.execute(db);
    await sql`analyze issue_facets`.execute(db);

    const prepared = prepareBatch(batch(appKey, [tagged('second')]));
    const plan = await planOf(new JsonbArray(prepared.rows), JSON.stringify(receivedRows([prepared])));
    const onFacets = nodes(plan).filter((node) => node['Relation Name'] === 'issue_facets');
    // A probe: an index scan with a condition (a merge anti-join reads the whole index, without one).
    const probes = onFacets.filter((node) => node['Node Type'].startsWith('Index') && node['Index Cond'] !== undefined);
    expect(onFacets.map((node) => node['Node Type'])).toContain('ModifyTable');
    expect(onFacets.filter((node) => node['Node Type'] !== 'ModifyTable' && !probes.includes(node))).toEqual([]);
  });

  // PostgreSQL compiles a statement whose estimated cost passes jit_above_cost (100,000 by default) with LLVM, where
  // it has JIT: 0.5 s for this statement, every time it runs (10x the statement's own time at 200 events). The
  // collector's connections turn JIT off (connection.ts), but a URL's own options may turn it on again.
  it('is estimated well under the cost at which PostgreSQL would compile it', async () => {
    expect((await planOf(new JsonbArray([]), '[]'))['Total Cost']).toBeLessThan(50_000);
  });
});
