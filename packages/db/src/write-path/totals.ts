// Hourly and per-app totals: what charts and the all-time overview read instead of counting events. Appended to the
// counter ledger (counters.ts): plain inserts, no row lock, folded later.
import { HOUR } from '@collector/domain';
import { sql } from 'kysely';
import { part, type StatementPart } from './part';

const hour = sql.lit(HOUR);

export const totalParts: readonly StatementPart[] = [
  part({
    name: 'hourly_counts',
    reads: ['new_events'],
    writes: ['app_hourly_deltas'],
    query: sql`insert into app_hourly_deltas (app_key, hour_start, events, errors, failed_requests)
    select app_key, (timestamp / ${hour}) * ${hour}, count(*), count(*) filter (where type = 'error'), count(*) filter (where type = 'request')
    from new_events group by 1, 2`,
  }),
  part({
    name: 'app_additions',
    reads: ['new_events'],
    query: sql`select app_key, count(*) as events, count(*) filter (where type = 'error') as errors, count(*) filter (where type = 'request') as failed_requests
    from new_events group by app_key`,
  }),
  // The app's new issues and new users, from the parts that created them (issues.ts, activity.ts).
  part({
    name: 'app_counts',
    reads: ['app_additions', 'stored_issues', 'user_hour_changes'],
    writes: ['app_totals_deltas'],
    query: sql`insert into app_totals_deltas (app_key, events, errors, failed_requests, issues, users)
    select d.app_key, d.events, d.errors, d.failed_requests,
      (select count(*) from stored_issues x where x.app_key = d.app_key and x.created),
      (select count(*) from user_hour_changes y where y.app_key = d.app_key and y.created)
    from app_additions d`,
  }),
];
