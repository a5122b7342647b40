// Hourly and per-app totals: what charts and the all-time overview read instead of counting events.
import { HOUR } from '@collector/domain';
import { sql } from 'kysely';
import { part, type StatementPart } from './part';

const hour = sql.lit(HOUR);

export const totalParts: readonly StatementPart[] = [
  part({
    name: 'hourly_counts',
    reads: ['new_events'],
    writes: ['app_hourly'],
    query: sql`insert into app_hourly (app_key, hour_start, events, errors, failed_requests)
    select app_key, (timestamp / ${hour}) * ${hour}, count(*), count(*) filter (where type = 'error'), count(*) filter (where type = 'request')
    from new_events group by 1, 2 order by 1, 2
    on conflict (app_key, hour_start) do update set
      events = app_hourly.events + excluded.events,
      errors = app_hourly.errors + excluded.errors,
      failed_requests = app_hourly.failed_requests + excluded.failed_requests`,
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
    writes: ['app_totals'],
    query: sql`update app_totals t set
      events = t.events + d.events,
      errors = t.errors + d.errors,
      failed_requests = t.failed_requests + d.failed_requests,
      issues = t.issues + (select count(*) from stored_issues x where x.app_key = d.app_key and x.created),
      users = t.users + (select count(*) from user_hour_changes y where y.app_key = d.app_key and y.created)
    from app_additions d
    where t.app_key = d.app_key`,
  }),
];
