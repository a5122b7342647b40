// Issues: each new event adds to its issue's count, first and last seen; a new issue takes its earliest event's message
// and error type. Its distinct users grow by the (issue, user) pairs new_issue_users (distinct-users.ts) inserted.
import { sql } from 'kysely';
import { part, type StatementPart } from './statement';

export const issueParts = (): StatementPart[] => [
  part(
    'issue_additions',
    sql`select app_key, fingerprint, count(*) as events, min(timestamp) as first_seen, max(timestamp) as last_seen
    from new_events group by app_key, fingerprint`,
  ),
  // One sort of the statement's events, not a scan per issue; from the input rows, which carry the message and error
  // type that events rows keep only inside the payload.
  part(
    'first_event_of_issue',
    sql`select distinct on (app_key, fingerprint) app_key, fingerprint, message, error_type from sent_events order by app_key, fingerprint, ts`,
  ),
  part(
    'stored_issues',
    sql`insert into issues (app_key, fingerprint, message, error_type, event_count, user_count, first_seen_at, last_seen_at)
    select a.app_key, a.fingerprint, f.message, f.error_type, a.events, coalesce(u.users, 0), a.first_seen, a.last_seen
    from issue_additions a
    join first_event_of_issue f on f.app_key = a.app_key and f.fingerprint = a.fingerprint
    left join (select app_key, fingerprint, count(*) as users from new_issue_users group by 1, 2) u
      on u.app_key = a.app_key and u.fingerprint = a.fingerprint
    order by a.app_key, a.fingerprint
    on conflict (app_key, fingerprint) do update set
      event_count = issues.event_count + excluded.event_count,
      user_count = issues.user_count + excluded.user_count,
      first_seen_at = least(issues.first_seen_at, excluded.first_seen_at),
      last_seen_at = greatest(issues.last_seen_at, excluded.last_seen_at)
    -- xmax is 0 only on a row this statement inserted: that is how new issues are told from updated ones.
    returning app_key, xmax = 0 as created`,
  ),
];
