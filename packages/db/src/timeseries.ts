import type { TimeBucket } from '@collector/domain';
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema';

/** Hourly counts summed over an organization's apps (or one), for hours starting in [fromHour, to). */
export async function hourlyTotals(
  db: Kysely<Database>,
  query: { orgId: string; appKey?: string | undefined; fromHour: number; to: number },
): Promise<TimeBucket[]> {
  const apps = db
    .selectFrom('apps')
    .select('app_key')
    .where(query.appKey === undefined ? 'org_id' : 'app_key', '=', query.appKey ?? query.orgId);
  return db
    .selectFrom('app_hourly')
    .where('app_key', 'in', apps)
    .where('hour_start', '>=', query.fromHour)
    .where('hour_start', '<', query.to)
    .groupBy('hour_start')
    .orderBy('hour_start')
    .select([
      'hour_start as start',
      sql<number>`sum(events)::int8`.as('events'),
      sql<number>`sum(errors)::int8`.as('errors'),
      sql<number>`sum(failed_requests)::int8`.as('failedRequests'),
    ])
    .execute();
}
