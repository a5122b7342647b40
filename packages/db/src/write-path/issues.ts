// Issues: each new event adds to its issue's count, first and last seen; a new issue takes its earliest event's
// message, error type, type and culprit, and every issue its latest event's level and release. Its distinct users grow
// by the (issue, user) pairs new_issue_users (distinct-users.ts) inserted. Triage is decided here too: an event for a
// resolved issue reopens it (a regression).
import { sql } from 'kysely';
import { part, type StatementPart } from './part';

export const issueParts: readonly StatementPart[] = [
  part({
    name: 'issue_additions',
    reads: ['new_events'],
    query: sql`select app_key, fingerprint, count(*) as events, min(timestamp) as first_seen, max(timestamp) as last_seen, min(received_at) as received_at
    from new_events group by app_key, fingerprint`,
  }),
  // One sort of the statement's events, not a scan per issue; from the input rows, which carry the message, error
  // type and culprit that events rows keep only inside the payload (or not at all).
  part({
    name: 'first_event_of_issue',
    reads: ['sent_events'],
    query: sql`select distinct on (app_key, fingerprint) app_key, fingerprint, message, error_type, culprit, type from sent_events order by app_key, fingerprint, ts`,
  }),
  part({
    name: 'latest_event_of_issue',
    reads: ['sent_events'],
    query: sql`select distinct on (app_key, fingerprint) app_key, fingerprint, level, release from sent_events order by app_key, fingerprint, ts desc`,
  }),
  // The upsert locks the issue row and decides on the row as it now is, committed writers included: of concurrent
  // statements for one resolved issue exactly one finds it resolved and reopens it, at the receipt of its events; an
  // ignored issue stays ignored. The inserted row's status_changed_at carries that time; a new issue keeps it as the
  // time it took its first status. search_text is what the list's search reads, lower-cased once here.
  // RETURNING gives each issue the statement created or reopened (regressed_by_last_write, since RETURNING sees only
  // the row as written): what alerts on new issues and regressions start from.
  part({
    name: 'stored_issues',
    reads: ['issue_additions', 'first_event_of_issue', 'latest_event_of_issue', 'new_issue_users'],
    writes: ['issues'],
    query: sql`insert into issues (app_key, fingerprint, message, error_type, event_count, user_count, first_seen_at, last_seen_at,
      culprit, type, level, last_release, status_changed_at, search_text)
    select a.app_key, a.fingerprint, f.message, f.error_type, a.events, coalesce(u.users, 0), a.first_seen, a.last_seen,
      f.culprit, f.type, coalesce(l.level, 'error'), l.release, a.received_at, lower(concat_ws(E'\\n', f.message, f.error_type, f.culprit))
    from issue_additions a
    join first_event_of_issue f on f.app_key = a.app_key and f.fingerprint = a.fingerprint
    join latest_event_of_issue l on l.app_key = a.app_key and l.fingerprint = a.fingerprint
    left join (select app_key, fingerprint, count(*) as users from new_issue_users group by 1, 2) u
      on u.app_key = a.app_key and u.fingerprint = a.fingerprint
    order by a.app_key, a.fingerprint
    on conflict (app_key, fingerprint) do update set
      event_count = issues.event_count + excluded.event_count,
      user_count = issues.user_count + excluded.user_count,
      first_seen_at = least(issues.first_seen_at, excluded.first_seen_at),
      last_seen_at = greatest(issues.last_seen_at, excluded.last_seen_at),
      -- Issues from before culprits were computed get one from their next event.
      culprit = coalesce(issues.culprit, excluded.culprit),
      search_text = case when issues.culprit is null and excluded.culprit is not null
        then lower(concat_ws(E'\\n', issues.message, issues.error_type, excluded.culprit)) else issues.search_text end,
      level = case when excluded.last_seen_at >= issues.last_seen_at then excluded.level else issues.level end,
      last_release = case when excluded.last_seen_at >= issues.last_seen_at then coalesce(excluded.last_release, issues.last_release)
        else coalesce(issues.last_release, excluded.last_release) end,
      status = case when issues.status = 'resolved' then 'unresolved' else issues.status end,
      regressed_at = case when issues.status = 'resolved' then excluded.status_changed_at else issues.regressed_at end,
      status_changed_at = case when issues.status = 'resolved' then excluded.status_changed_at else issues.status_changed_at end,
      regressed_by_last_write = issues.status = 'resolved'
    -- xmax is 0 only on a row this statement inserted: that is how new issues are told from updated ones.
    returning app_key, fingerprint, xmax = 0 as created, regressed_by_last_write as regressed`,
  }),
  // Events per issue and UTC day: the issue page's chart.
  part({
    name: 'issue_day_counts',
    reads: ['new_events'],
    writes: ['issue_days'],
    query: sql`insert into issue_days as t (app_key, fingerprint, day, events)
    select app_key, fingerprint, (timestamp / 86400000)::int4, count(*) from new_events group by 1, 2, 3 order by 1, 2, 3
    on conflict (app_key, fingerprint, day) do update set events = t.events + excluded.events`,
  }),
  // The releases and environments each issue was seen in, for the list's filters. Usually all known already: then an
  // index probe each and no write. Read from the input rows (a copy of an event already stored names the same ones).
  part({
    name: 'new_issue_facets',
    reads: ['sent_events'],
    writes: ['issue_facets'],
    query: sql`insert into issue_facets (app_key, facet, value, fingerprint)
    select n.app_key, n.facet, n.value, n.fingerprint from (
      select distinct s.app_key, f.facet, f.value, s.fingerprint from sent_events s
      cross join lateral (values ('release', s.release), ('environment', s.environment)) f(facet, value)
      where f.value is not null
    ) n
    where not exists (select from issue_facets k where k.app_key = n.app_key and k.facet = n.facet and k.value = n.value and k.fingerprint = n.fingerprint)
    order by 1, 2, 3, 4
    on conflict do nothing`,
  }),
];
