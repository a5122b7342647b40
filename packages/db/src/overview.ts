// Overview totals: from the maintained counters, or from the events of a time window.
import type { OverviewTotals } from '@collector/domain';
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema';

export interface OverviewQuery {
  userId: string;
  appKey?: string | undefined;
  /** Inclusive lower bound on the event timestamp, ms. */
  from?: number | undefined;
  /** Exclusive upper bound, ms. */
  to?: number | undefined;
}

function ownedApps(db: Kysely<Database>, query: OverviewQuery) {
  let apps = db.selectFrom('apps').select('app_key').where('user_id', '=', query.userId);
  if (query.appKey !== undefined) apps = apps.where('app_key', '=', query.appKey);
  return apps;
}

export async function overviewTotals(db: Kysely<Database>, query: OverviewQuery): Promise<OverviewTotals> {
  if (query.from !== undefined || query.to !== undefined) return windowTotals(db, query);

  const totals = await db
    .selectFrom('app_totals')
    .where('app_key', 'in', ownedApps(db, query))
    .select([
      sql<number>`coalesce(sum(events), 0)::int8`.as('events'),
      sql<number>`coalesce(sum(errors), 0)::int8`.as('errors'),
      sql<number>`coalesce(sum(failed_requests), 0)::int8`.as('failedRequests'),
      sql<number>`coalesce(sum(issues), 0)::int8`.as('issues'),
      sql<number>`coalesce(sum(users), 0)::int8`.as('users'),
    ])
    .executeTakeFirstOrThrow();
  const { users, ...counts } = totals;
  if (query.appKey !== undefined) return { ...counts, affectedUsers: users };
  // The same anonymous id may appear in several of the user's apps: count it once.
  const distinct = await db
    .selectFrom('app_users')
    .where('app_key', 'in', ownedApps(db, query))
    .select(sql<number>`count(distinct anonymous_id)`.as('users'))
    .executeTakeFirstOrThrow();
  return { ...counts, affectedUsers: distinct.users };
}

async function windowTotals(db: Kysely<Database>, query: OverviewQuery): Promise<OverviewTotals> {
  let events = db.selectFrom('events').where('app_key', 'in', ownedApps(db, query));
  if (query.from !== undefined) events = events.where('timestamp', '>=', query.from);
  if (query.to !== undefined) events = events.where('timestamp', '<', query.to);
  return events
    .select([
      sql<number>`count(*)`.as('events'),
      sql<number>`count(*) filter (where type = 'error')`.as('errors'),
      sql<number>`count(*) filter (where type = 'request')`.as('failedRequests'),
      sql<number>`count(distinct anonymous_id)`.as('affectedUsers'),
      sql<number>`count(distinct (app_key, fingerprint))`.as('issues'),
    ])
    .executeTakeFirstOrThrow();
}
