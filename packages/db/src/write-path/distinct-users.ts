// Distinct users (anonymous ids) per issue, per app and per owner (over all of an account's apps), each kept exact by
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

/** After the apps' users: only an id new to an app can be new to its owner. */
export const ownerUserParts: readonly StatementPart[] = [
  part({
    name: 'new_owner_users',
    reads: ['user_hour_changes'],
    writes: ['owner_users'],
    query: sql`insert into owner_users as o (user_id, anonymous_id, apps)
    select a.user_id, c.subject, count(*) from user_hour_changes c join apps a on a.app_key = c.app_key
    where c.created
    group by 1, 2 order by 1, 2
    on conflict (user_id, anonymous_id) do update set apps = o.apps + excluded.apps
    returning user_id, xmax = 0 as created`,
  }),
  part({
    name: 'owner_user_counts',
    reads: ['new_owner_users'],
    writes: ['owner_totals_deltas'],
    query: sql`insert into owner_totals_deltas (user_id, users)
    select user_id, count(*) from new_owner_users where created group by 1`,
  }),
];
