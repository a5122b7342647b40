// Overview totals: from the maintained counters, or over a time window from rollups, reading events only for the
// partial hours at the window's edges. One statement either way.
import type { OverviewTotals } from '@collector/domain';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from './schema';

export interface OverviewQuery {
  userId: string;
  appKey?: string | undefined;
  /** Inclusive lower bound on the event timestamp, ms. */
  from?: number | undefined;
  /** Exclusive upper bound, ms. */
  to?: number | undefined;
}

/** Past the largest timestamp a query may name: a window without `to` runs to here. */
const END_OF_TIME = 8_640_000_000_000_001;

/** The caller's apps (or the one asked for), as one array: `app_key = any(...)` gives each index scan every app. */
function ownedApps(query: OverviewQuery): RawBuilder<string[]> {
  const one = query.appKey === undefined ? sql`` : sql`and app_key = ${query.appKey}`;
  return sql<string[]>`array(select app_key from apps where user_id = ${query.userId} ${one})`;
}

export async function overviewTotals(db: Kysely<Database>, query: OverviewQuery): Promise<OverviewTotals> {
  if (query.from === undefined && query.to === undefined) return allTimeTotals(db, query);
  return windowTotals(db, query);
}

async function allTimeTotals(db: Kysely<Database>, query: OverviewQuery): Promise<OverviewTotals> {
  // One app's distinct users are its own counter; over all apps, the owner's counter counts an id seen in several once.
  const users =
    query.appKey === undefined
      ? sql<number>`coalesce((select users from owner_totals where user_id = ${query.userId}), 0)::int8`
      : sql<number>`coalesce(sum(users), 0)::int8`;
  const { rows } = await sql<OverviewTotals>`
    select coalesce(sum(events), 0)::int8 as "events", coalesce(sum(errors), 0)::int8 as "errors",
      coalesce(sum(failed_requests), 0)::int8 as "failedRequests", ${users} as "affectedUsers", coalesce(sum(issues), 0)::int8 as "issues"
    from app_totals where app_key = any(${ownedApps(query)})`.execute(db);
  return rows[0] as OverviewTotals;
}

/**
 * Totals of the events with from <= timestamp < to, by overview_window() (migrations 0006 and 0007: a PL/pgSQL function
 * so that its plan is kept per connection, as planning the statement took longer than running it). What it reads:
 *
 * Events, errors and failed requests: whole hours from app_hourly; the partial hours at the edges, [t1, end of t1's
 * hour) and [start of t2's hour, t2), from the events (an index-only range each).
 *
 * Distinct users and issues ("subjects"), from activity_hours (migration 0003): per app, each subject's active hours,
 * each linked to the subject's active hour before it. With h0 = t1's hour < hN = t2's hour and F = the whole hours
 * (h0, hN) between, a subject active in the window counts once, by the first of these that applies:
 *   "late": an event in [t1, end of h0);
 *   its next active hour after h0 is in F: counted as the links in F whose previous hour is h0 or earlier (each such
 *     subject has exactly one, its first in F): those whose previous hour is on an earlier day than h0's from counts
 *     per day (activity_by_prev_day, for the whole days) and per hour (activity_by_hour, for the hours of h0's and hN's
 *     days), those whose previous hour is on h0's day, at or before it, link by link;
 *   "early": an event in [start of hN, t2) and no active hour in F: its link at hN then follows h0 or an earlier hour.
 * So: late subjects whose next hour is not in F (their link after h0 says where it is), plus those links, plus early
 * subjects whose hour hN follows an hour before h0, or h0 without being late. Over all of an owner's apps, an anonymous
 * id active in k > 1 of them was counted k times: the ids seen in several apps (owner_users.apps > 1; usually few)
 * are looked up one by one. When t1 and t2 fall in one hour, the events are simply counted.
 *
 * Cost: a few rows per day and per hour of the window's two partial days, the links that follow the hours of its first
 * day before it starts, and the events of its two partial hours; never a row per event or per user of the window.
 */
async function windowTotals(db: Kysely<Database>, query: OverviewQuery): Promise<OverviewTotals> {
  const t1 = Math.max(query.from ?? 0, 0);
  const t2 = query.to ?? END_OF_TIME;
  if (t2 <= t1) return { events: 0, errors: 0, failedRequests: 0, affectedUsers: 0, issues: 0 };
  // Over all apps, the owner whose ids seen in several apps must be counted once.
  const owner = query.appKey === undefined ? query.userId : null;
  const { rows } = await sql<OverviewTotals>`
    select w_events as "events", w_errors as "errors", w_failed_requests as "failedRequests", w_users as "affectedUsers", w_issues as "issues"
    from overview_window(${ownedApps(query)}, ${owner}::text, ${t1}::int8, ${t2}::int8)`.execute(db);
  return rows[0] as OverviewTotals;
}
