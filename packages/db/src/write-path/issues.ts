// Issues: each new event adds to its issue's count, first and last seen (through the counter ledger); a new issue
// takes its earliest event's message, error type, type and culprit, and every issue its latest event's level and
// release. Triage is decided here too: an event for a resolved issue reopens it (a regression).
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
    query: sql`select distinct on (app_key, fingerprint) app_key, fingerprint, message, error_type, culprit, type, grouping, release from sent_events order by app_key, fingerprint, ts`,
  }),
  part({
    name: 'latest_event_of_issue',
    reads: ['sent_events'],
    query: sql`select distinct on (app_key, fingerprint) app_key, fingerprint, level, release from sent_events order by app_key, fingerprint, ts desc`,
  }),
  // An issue row is locked only when its state changes. An issue this statement's snapshot does not show is inserted,
  // DO NOTHING when a concurrent statement inserted it first (this one then waits for that one's commit, once per new
  // issue): RETURNING names the issues this statement created, each exactly once, for the new-issue alerts. Known
  // issues are not even tried: an insert checks the key's row, and waits for whoever is updating it (the fold). Its
  // counts start at zero; the deltas below add this statement's events, as for any issue. status_changed_at carries
  // the receipt of its first events: the time it took its first status. search_text is what the list's search reads, lower-cased once here.
  part({
    name: 'created_issues',
    reads: ['issue_additions', 'first_event_of_issue', 'latest_event_of_issue'],
    writes: ['issues'],
    query: sql`insert into issues (app_key, fingerprint, message, error_type, event_count, user_count, first_seen_at, last_seen_at,
      culprit, type, level, last_release, status_changed_at, search_text, grouping_version)
    select a.app_key, a.fingerprint, f.message, f.error_type, 0, 0, a.first_seen, a.last_seen,
      f.culprit, f.type, coalesce(l.level, 'error'), l.release, a.received_at, lower(concat_ws(E'\\n', f.message, f.error_type, f.culprit)),
      f.grouping
    from issue_additions a
    join first_event_of_issue f on f.app_key = a.app_key and f.fingerprint = a.fingerprint
    join latest_event_of_issue l on l.app_key = a.app_key and l.fingerprint = a.fingerprint
    where not exists (select from issues k where k.app_key = a.app_key and k.fingerprint = a.fingerprint)
    order by a.app_key, a.fingerprint
    on conflict (app_key, fingerprint) do nothing
    returning app_key, fingerprint`,
  }),
  // Triage: an event for a resolved issue reopens it (a regression), at the receipt of its events; an ignored issue
  // stays ignored. The update touches only issues that are resolved (or lack a culprit: issues from before culprits
  // were computed get one from their next event) in this statement's snapshot; it then locks the row and checks again
  // on the row as it now is, so of concurrent statements for one resolved issue exactly one reopens it. RETURNING sees
  // only the row as written: regressed_by_last_write tells a reopened issue from a culprit filled in.
  part({
    name: 'changed_issues',
    reads: ['issue_additions', 'first_event_of_issue'],
    writes: ['issues'],
    query: sql`update issues i set
      status = case when i.status = 'resolved' then 'unresolved' else i.status end,
      regressed_at = case when i.status = 'resolved' then a.received_at else i.regressed_at end,
      status_changed_at = case when i.status = 'resolved' then a.received_at else i.status_changed_at end,
      regressed_by_last_write = i.status = 'resolved',
      culprit = coalesce(i.culprit, f.culprit),
      search_text = case when i.culprit is null and f.culprit is not null
        then lower(concat_ws(E'\\n', i.message, i.error_type, f.culprit)) else i.search_text end
    from issue_additions a
    join first_event_of_issue f on f.app_key = a.app_key and f.fingerprint = a.fingerprint
    where i.app_key = a.app_key and i.fingerprint = a.fingerprint
      and (i.status = 'resolved' or (i.culprit is null and f.culprit is not null))
    returning i.app_key, i.fingerprint, i.regressed_by_last_write as regressed`,
  }),
  // The issues this statement created or reopened: what alerts on new issues and regressions start from.
  part({
    name: 'stored_issues',
    reads: ['created_issues', 'changed_issues'],
    query: sql`select app_key, fingerprint, true as created, false as regressed from created_issues
    union all
    select app_key, fingerprint, false, true from changed_issues where regressed`,
  }),
  // Every issue's counts, seen times, latest level and release: a row in the counter ledger (counters.ts folds it
  // into the issue's row; issues_live adds what is not folded yet). Its distinct users grow by the (issue, user)
  // pairs new_issue_users (distinct-users.ts) inserted, each of an issue of issue_additions: a full join that is a left
  // join, written full because PostgreSQL runs a full join only by hash or merge. Every CTE is estimated at one row, and
  // as a left join it was a nested loop that went over the grouped users again for every issue (quadratic: 2 ms of a
  // 200-event statement, 9 of a 1,000-event one).
  part({
    name: 'issue_count_deltas',
    reads: ['issue_additions', 'latest_event_of_issue', 'new_issue_users'],
    writes: ['issue_deltas'],
    query: sql`insert into issue_deltas (app_key, fingerprint, events, users, first_seen, last_seen, level, last_release)
    select a.app_key, a.fingerprint, a.events, coalesce(u.users, 0), a.first_seen, a.last_seen, coalesce(l.level, 'error'), l.release
    from issue_additions a
    join latest_event_of_issue l on l.app_key = a.app_key and l.fingerprint = a.fingerprint
    full join (select app_key, fingerprint, count(*) as users from new_issue_users group by 1, 2) u
      on u.app_key = a.app_key and u.fingerprint = a.fingerprint`,
  }),
  // Events per issue and UTC day: the issue page's chart.
  part({
    name: 'issue_day_counts',
    reads: ['new_events'],
    writes: ['issue_days_deltas'],
    query: sql`insert into issue_days_deltas (app_key, fingerprint, day, events)
    select app_key, fingerprint, (timestamp / 86400000)::int4, count(*) from new_events group by 1, 2, 3`,
  }),
  // The input rows of the events stored now (a copy of an event already stored is not counted again), with what the
  // counts below read of them: joined once for the three of them, and without the payloads.
  part({
    name: 'kept_events',
    reads: ['sent_events', 'new_events'],
    query: sql`select s.app_key, s.fingerprint, s.ts, s.release, s.environment, s.user_agent, s.tags
    from sent_events s join new_events n on n.app_key = s.app_key and n.event_id = s.event_id`,
  }),
  // The issue's events by release, environment and user agent ('' for none): its breakdown, counted (counters.ts)
  // rather than read from payloads.
  part({
    name: 'issue_context_counts',
    reads: ['kept_events'],
    writes: ['issue_contexts_deltas'],
    query: sql`insert into issue_contexts_deltas (app_key, fingerprint, release, environment, user_agent, events)
    select app_key, fingerprint, coalesce(release, ''), coalesce(environment, ''), coalesce(user_agent, ''), count(*)
    from kept_events group by 1, 2, 3, 4, 5`,
  }),
  // The app's events by release (the releases page): how many, the first and last, and the issues this statement
  // created, each counted in its first event's release as Sentry counts a release's new issues. An empty release is
  // none, as in the breakdown's counts.
  part({
    name: 'release_counts',
    reads: ['kept_events', 'created_issues', 'first_event_of_issue'],
    writes: ['app_releases_deltas'],
    query: sql`insert into app_releases_deltas (app_key, release, events, new_issues, first_seen, last_seen)
    select app_key, release, sum(events), sum(new_issues), min(first_seen), max(last_seen) from (
      select app_key, release, 1 as events, 0 as new_issues, ts as first_seen, ts as last_seen from kept_events
      union all
      select f.app_key, f.release, 0, 1, null, null
      from created_issues c join first_event_of_issue f on f.app_key = c.app_key and f.fingerprint = c.fingerprint
    ) r where release <> ''
    group by 1, 2`,
  }),
  // The issue's events by tag value (its own tags and the derived ones: domain tagsOf), for its tags panel. Counted per
  // distinct tag set first, which an issue's events mostly share, so each set is taken apart once, not once per event.
  part({
    name: 'issue_tag_counts',
    reads: ['kept_events'],
    writes: ['issue_tags_deltas'],
    query: sql`insert into issue_tags_deltas (app_key, fingerprint, key, value, events)
    select g.app_key, g.fingerprint, t.key, t.value, sum(g.events)
    from (
      select app_key, fingerprint, tags, count(*) as events from kept_events where tags is not null group by 1, 2, 3
    ) g
    cross join lateral jsonb_each_text(g.tags) t
    group by 1, 2, 3, 4`,
  }),
  // The releases, environments, handled values and tag values (facet 'tag:<key>') each issue was seen with, for the
  // list's filters and search. Usually all known already. Release, environment and handled are then found by an index
  // probe each and neither sorted nor tried by the insert (1.4 ms of a 200-event statement when they were); the probe
  // is a scalar sub-query, which PostgreSQL runs per row (as NOT EXISTS it became an anti-join that sorted and scanned
  // the whole table in every statement, ~1 ms each: docs/performance.md, issue 23). Tags are left to ON CONFLICT's own
  // check: jsonb_each_text is estimated at 100 rows a call, and a probe per estimated tag put the statement's cost at
  // 97,000, near jit_above_cost (100,000), past which PostgreSQL compiles it for 0.5 s every time (docs/performance.md).
  // Read from the input rows (a copy of an event already stored names the same ones), each distinct combination once:
  // an issue's events in a statement mostly share them (5-9% less PostgreSQL time per event in statements of 1,000
  // batch events, docs/performance.md).
  part({
    name: 'new_issue_facets',
    reads: ['sent_events'],
    writes: ['issue_facets'],
    query: sql`insert into issue_facets (app_key, facet, value, fingerprint)
    select distinct s.app_key, f.facet, f.value, s.fingerprint from (
      select distinct app_key, fingerprint, release, environment, handled, tags from sent_events
    ) s
    cross join lateral (
      select v.facet, v.value from (values ('release', s.release), ('environment', s.environment), ('handled', s.handled)) v(facet, value)
      where v.value is not null and (select true from issue_facets k
        where k.app_key = s.app_key and k.facet = v.facet and k.value = v.value and k.fingerprint = s.fingerprint) is null
      union all select 'tag:' || t.key, t.value from jsonb_each_text(s.tags) t where t.value is not null
    ) f(facet, value)
    order by 1, 2, 3, 4
    on conflict do nothing`,
  }),
];
