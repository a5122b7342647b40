// Distinct users (anonymous ids) per issue, per app and per organization (over all of its apps), each kept exact by
// an insert that tells which ids are new. An app's users are its app_users rows, written by activity.ts together with
// their active hours (one upsert, one row lock): user_hour_changes says which of them it created.
import { sql } from 'kysely';
import { part, type StatementPart } from './part';

/** Before the issues: an issue's user count grows by the pairs inserted here. */
export const issueUserParts: readonly StatementPart[] = [
  part({
    name: 'new_issue_users',
    reads: ['new_events'],
    writes: ['issue_users'],
    query: sql`insert into issue_users (app_key, fingerprint, anonymous_id)
    select distinct app_key, fingerprint, anonymous_id from new_events where anonymous_id is not null
    order by 1, 2, 3
    on conflict do nothing
    returning app_key, fingerprint`,
  }),
];

/** After the apps' users: only an id new to an app can be new to its organization. */
export const orgUserParts: readonly StatementPart[] = [
  part({
    name: 'new_org_users',
    reads: ['user_hour_changes'],
    writes: ['org_users'],
    query: sql`insert into org_users as o (org_id, anonymous_id, apps)
    select a.org_id, c.subject, count(*) from user_hour_changes c join apps a on a.app_key = c.app_key
    where c.created and a.org_id is not null
    group by 1, 2 order by 1, 2
    on conflict (org_id, anonymous_id) do update set apps = o.apps + excluded.apps
    returning org_id, xmax = 0 as created`,
  }),
  part({
    name: 'org_user_counts',
    reads: ['new_org_users'],
    writes: ['org_totals_deltas'],
    query: sql`insert into org_totals_deltas (org_id, users)
    select org_id, count(*) from new_org_users where created group by 1`,
  }),
];
