// Overview totals: from the maintained counters, or over a time window from rollups, reading events only for the
// partial hours at the window's edges. One statement either way.
import type { OverviewTotals } from '@collector/domain';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from './schema';

export interface OverviewQuery {
  /** One organization's apps, when no appKey names one app (whose access was checked before). */
  orgId: string;
  appKey?: string | undefined;
  /** Inclusive lower bound on the event timestamp, ms. */
  from?: number | undefined;
  /** Exclusive upper bound, ms. */
  to?: number | undefined;
}

/** Past the largest timestamp a query may name: a window without `to` runs to here. */
const END_OF_TIME = 8_640_000_000_000_001;

/** The organization's apps (or the one asked for), as one array: `app_key = any(...)` gives each index scan every app. */
function ownedApps(query: OverviewQuery): RawBuilder<string[]> {
  const apps = query.appKey === undefined ? sql`org_id = ${query.orgId}` : sql`app_key = ${query.appKey}`;
  return sql<string[]>`array(select app_key from apps where ${apps})`;
}

export async function overviewTotals(db: Kysely<Database>, query: OverviewQuery): Promise<OverviewTotals> {
  if (query.from === undefined && query.to === undefined) return allTimeTotals(db, query);
  return windowTotals(db, query);
}

async function allTimeTotals(db: Kysely<Database>, query: OverviewQuery): Promise<OverviewTotals> {
  // One app's distinct users are its own counter; over all apps, the organization's counter counts an id seen in
  // several of them once.
  const users =
    query.appKey === undefined
      ? sql<number>`coalesce((select users from org_totals where org_id = ${query.orgId}), 0)::int8`
      : sql<number>`coalesce(sum(users), 0)::int8`;
  const { rows } = await sql<OverviewTotals>`
    select coalesce(sum(events), 0)::int8 as "events", coalesce(sum(errors), 0)::int8 as "errors",
      coalesce(sum(failed_requests), 0)::int8 as "failedRequests", ${users} as "affectedUsers", coalesce(sum(issues), 0)::int8 as "issues"
    from app_totals where app_key = any(${ownedApps(query)})`.execute(db);
  return rows[0] as OverviewTotals;
}

/**
 * Totals of the events with from <= timestamp < to, by overview_window(): its SQL, and how it counts distinct users
 * and issues without reading a row per event or per user, are in windowed-counts.ts.
 */
async function windowTotals(db: Kysely<Database>, query: OverviewQuery): Promise<OverviewTotals> {
  const windowStart = Math.max(query.from ?? 0, 0);
  const windowEnd = query.to ?? END_OF_TIME;
  if (windowEnd <= windowStart) return { events: 0, errors: 0, failedRequests: 0, affectedUsers: 0, issues: 0 };
  // Over all apps, the organization whose ids seen in several apps must be counted once.
  const owner = query.appKey === undefined ? query.orgId : null;
  const { rows } = await sql<OverviewTotals>`
    select window_events as "events", window_errors as "errors", window_failed_requests as "failedRequests",
      window_users as "affectedUsers", window_issues as "issues"
    from overview_window(${ownedApps(query)}, ${owner}::text, ${windowStart}::int8, ${windowEnd}::int8)`.execute(db);
  return rows[0] as OverviewTotals;
}
