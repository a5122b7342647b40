// The write statement's plan for one event, on a database whose issue_facets is large and analysed: the facets part
// must not read the table beside its own ON CONFLICT check. Its anti-join did (a merge join that sorted every facet
// row in every statement, ~1 ms at 750 rows and growing with the table: docs/performance.md, issue 23).
import { CompiledQuery, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { prepareBatch } from './batch';
import { receivedRows } from './outcomes';
import { storeStatement } from './statement';
import { batch, errorEvent, openWritePathDatabase } from './testing';

const { db, newAccount, store } = await openWritePathDatabase('plan');

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

describe('the write statement’s plan', () => {
  it('reads issue_facets only through the insert’s conflict check, however large the table', async () => {
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
    const compiled = storeStatement(prepared.rowsJson, JSON.stringify(receivedRows([prepared])), 0).compile(db);
    const { rows } = await db.executeQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      CompiledQuery.raw(`explain (format json) ${compiled.sql}`, [...compiled.parameters]),
    );
    const plan = rows[0]?.['QUERY PLAN'][0].Plan as PlanNode;
    const onFacets = nodes(plan)
      .filter((node) => node['Relation Name'] === 'issue_facets')
      .map((node) => node['Node Type']);
    expect(onFacets).toEqual(['ModifyTable']);
  });
});
