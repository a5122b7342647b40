// The write path's one statement: the named parts of events.ts, distinct-users.ts, issues.ts, activity.ts, totals.ts and alerts.ts
// joined into a single WITH, so that a group of batches is still one round trip and one commit, and the hot rows
// (issues, totals) stay locked only for that statement.
import { type RawBuilder, sql } from 'kysely';
import { PREPARED } from '../connection';
import { activityParts } from './activity';
import { alertParts } from './alerts';
import { issueUserParts, ownerUserParts } from './distinct-users';
import { eventParts } from './events';
import { issueParts } from './issues';
import { outcomeParts } from './outcomes';
import { totalParts } from './totals';

/** One named part of the statement (a CTE). A part reads only the parts before it, by name. */
export interface StatementPart {
  name: string;
  query: RawBuilder<unknown>;
}

export const part = (name: string, query: RawBuilder<unknown>): StatementPart => ({ name, query });

/**
 * The statement for the given input rows (a JSON array, see events.ts) and the events received per app and hour
 * (outcomes.ts). A part may read only the parts before it: events, issue users, issues, active hours and their links,
 * owner users, totals (the order of the single template this replaced), outcomes, then alerts. Every statement is the same parts in the same order, and each insert writes its rows in key order,
 * so concurrent statements lock rows alike. Every data-modifying part runs once, to completion, whether or not a later
 * part reads it; all of them see the same snapshot, which is why a part that must see another part's writes reads that
 * part's RETURNING rows rather than its table.
 */
/** One row of the statement's answer: a stored event (event_id set), or an issue it created or reopened (event_id null). */
export interface StatementRow {
  app_key: string;
  event_id: string | null;
  fingerprint: string;
  created: boolean | null;
  regressed: boolean | null;
}

export function storeStatement(rowsJson: string, receivedJson: string, keepFrom: number): RawBuilder<StatementRow> {
  const parts = [
    ...eventParts(rowsJson),
    ...issueUserParts(),
    ...issueParts(),
    ...activityParts(keepFrom),
    ...ownerUserParts(),
    ...totalParts(),
    ...outcomeParts(receivedJson),
    ...alertParts(),
  ];
  // The same text for every group (the inputs are parameters): prepared once per connection.
  return withParts(
    parts,
    sql`select app_key, event_id, fingerprint, null::boolean as created, null::boolean as regressed from new_events
    union all
    select app_key, null, fingerprint, created, regressed from stored_issues where created or regressed`,
    PREPARED,
  );
}

/** `with <part>, <part>, ... <final>`: exported so that a test can run some parts alone. */
export function withParts<R>(parts: readonly StatementPart[], final: RawBuilder<unknown>, prefix = ''): RawBuilder<R> {
  const named = parts.map(({ name, query }) => sql`${sql.id(name)} as (${query})`);
  return sql<R>`${sql.raw(prefix)}with ${sql.join(named, sql`,\n`)}\n${final}`;
}
