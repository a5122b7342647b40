// The write path's one statement: the named parts of events.ts, distinct-users.ts, issues.ts, activity.ts, totals.ts,
// outcomes.ts, alerts.ts and feedback.ts joined into a single WITH, so that a group of batches is still one round trip
// and one commit. Its counters are appended to the counter ledger (counters.ts), so no row is locked to count: a row is
// locked only when its state changes (a new issue, a regression, a user's new active hour).
import { type RawBuilder, sql } from 'kysely';
import { PREPARED } from '../connection';
import type { JsonbArray } from '../jsonb-array';
import { activityParts } from './activity';
import { alertParts } from './alerts';
import { issueUserClaims, issueUserParts, orgUserParts } from './distinct-users';
import { eventParts } from './events';
import { feedbackParts } from './feedback';
import { issueParts } from './issues';
import { outcomeParts } from './outcomes';
import { type FinalQuery, type StatementPart, withParts } from './part';
import { totalParts } from './totals';

/**
 * The statement's parts in order: events, issue users, issues, active hours and their links, organization users,
 * totals (the order of the single template this replaced), outcomes, alerts, then feedback waiting for its event. Each
 * part reads only parts before it (withParts checks). Every statement is the same parts in the same order, and each insert that can lock a row writes
 * its rows in key order, so concurrent statements lock rows alike (the ledger's inserts lock none: counters.ts). Every data-modifying part runs once, to completion, whether or not a later
 * part reads it; all of them see the same snapshot, which is why a part that must see another part's writes reads that
 * part's RETURNING rows rather than its table.
 */
export const statementParts: readonly StatementPart[] = [
  ...eventParts,
  ...issueUserParts,
  ...issueParts,
  ...activityParts,
  ...orgUserParts,
  ...totalParts,
  ...outcomeParts,
  ...alertParts,
  ...feedbackParts,
];

/** One row of the statement's answer: a stored event (event_id set), or an issue it created or reopened (event_id null). */
export interface StatementRow {
  app_key: string;
  event_id: string | null;
  fingerprint: string;
  created: boolean | null;
  regressed: boolean | null;
}

export const statementAnswer: FinalQuery = {
  reads: ['new_events', 'stored_issues'],
  query: sql`select app_key, event_id, fingerprint, null::boolean as created, null::boolean as regressed from new_events
    union all
    select app_key, null, fingerprint, created, regressed from stored_issues where created or regressed`,
};

// Composed, and its order checked, once, when this module loads. The same text for every group (the inputs are
// parameters): prepared once per connection.
const statement = withParts<StatementRow>(statementParts, statementAnswer, PREPARED);

/**
 * The statement for the given input rows (a JSON array, see events.ts), the events received per app and hour
 * (outcomes.ts), and the (issue, user) pairs it may claim (distinct-users.ts).
 */
export function storeStatement(
  rows: JsonbArray,
  receivedJson: string,
  keepFrom: number,
  claims = issueUserClaims(1),
): RawBuilder<StatementRow> {
  return statement({ rows, receivedJson, keepFrom, claims });
}
