// An issue's tags as counted on the ledger (issue_tags, migration 0020), and which issues had an unhandled event
// (issue_facets' 'handled' facet). Both exact: they read the folded rows and the deltas not yet folded.
import { type Kysely, sql } from 'kysely';
import { PREPARED, PREPARED_SHAPE } from './connection';
import { issueKeyRows } from './issue-keys';
import { appKeyed } from './keys';
import type { Database } from './schema';

export interface TagCount {
  key: string;
  value: string;
  events: number;
}

/**
 * An issue's events by tag value, the `perKey` commonest values of each key (ties by value), keys in name order;
 * `keys` limits it to those keys.
 */
export async function issueTagCounts(
  db: Kysely<Database>,
  issue: { appKey: string; fingerprint: string },
  options: { perKey: number; keys?: readonly string[]; exceptKeys?: readonly string[] },
): Promise<TagCount[]> {
  const keys = options.keys
    ? sql`and key = any(${[...options.keys]}::text[])`
    : options.exceptKeys
      ? sql`and key <> all(${[...options.exceptKeys]}::text[])`
      : sql``;
  // One of three texts (keys, all keys but some, every key): prepared, planning the view cost more than running it.
  const { rows } = await sql<TagCount>`${sql.raw(PREPARED_SHAPE)}select key, value, events from (
      select key, value, events, row_number() over (partition by key order by events desc, value) as rank
      from issue_tags where app_key = ${issue.appKey} and fingerprint = ${issue.fingerprint} ${keys}
    ) ranked where rank <= ${options.perKey} order by key, events desc, value`.execute(db);
  return rows.map((row) => ({ key: row.key, value: row.value, events: Number(row.events) }));
}

/** The issues of keys `k` (issueKeyRows, in a WITH) with an unhandled event: a query of its own, or part of the list's. */
export const unhandledOfKeys = sql<{ app_key: string; fingerprint: string }>`
  select f.app_key, f.fingerprint from issue_facets f join k using (app_key, fingerprint)
  where f.facet = 'handled' and f.value = 'no'`;

/** unhandledOfKeys' rows as `${appKey}\0${fingerprint}`. */
export const unhandledSet = (rows: ReadonlyArray<{ app_key: string; fingerprint: string }>): Set<string> =>
  new Set(rows.map((row) => appKeyed(row.app_key, row.fingerprint)));

/** Of the given issues, those with at least one unhandled event, as `${appKey}\0${fingerprint}`. */
export async function unhandledIssues(
  db: Kysely<Database>,
  issues: ReadonlyArray<{ appKey: string; fingerprint: string }>,
): Promise<Set<string>> {
  if (issues.length === 0) return new Set();
  const { rows } = await sql<{ app_key: string; fingerprint: string }>`${sql.raw(PREPARED)}
    with k as (${issueKeyRows(issues)}) ${unhandledOfKeys}`.execute(db);
  return unhandledSet(rows);
}
