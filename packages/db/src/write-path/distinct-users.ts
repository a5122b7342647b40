// Distinct users (anonymous ids) per issue, per app and per organization (over all of its apps), each kept exact by an
// insert that tells which ids are new (an issue's, by claimed inserts and a pending list: below). An app's users are
// its app_users rows, written by activity.ts together with their active hours (one upsert, one row lock):
// user_hour_changes says which of them it created.
import { type Kysely, sql } from 'kysely';
import type { Database } from '../schema';
import { part, type StatementPart } from './part';

/**
 * The claims all write statements may hold at once. Each is an entry in PostgreSQL's shared lock table, which holds
 * about max_locks_per_transaction (64) x max_connections (100, plus PostgreSQL's own processes: about 7,800 entries
 * with the defaults) for every session together. The statements' 4,096 and the fold's FOLD_CLAIMS leave the rest to
 * everything else. A statement's share is issueUserClaims; its further pairs go to issue_users_pending, as a pair
 * claimed elsewhere does.
 */
const CLAIM_BUDGET = 4096;

/** The pending pairs one fold statement claims and moves; the fold repeats while it finds that many. */
const FOLD_CLAIMS = 1024;
/** At most this many statements a fold: 65,536 pairs, the rest left to the next fold. */
const FOLD_ROUNDS = 64;

/**
 * The (issue, user) pairs one write statement may claim when `statements` run at once (all processes' together):
 * its share of CLAIM_BUDGET, at most 2,000 (a statement's events, unless one batch alone holds more).
 */
export const issueUserClaims = (statements: number): number =>
  Math.min(2000, Math.max(1, Math.floor(CLAIM_BUDGET / Math.max(1, statements))));

// Any constant of the collector's own: the first key of the two-key advisory locks (a space apart from the one-key
// lock the folder takes). "iusr" in ASCII.
const CLAIM_SPACE = sql.lit(0x69757372);

/**
 * Claims the (issue, user) pair of the row aliased `row` for this transaction, unless another transaction has claimed
 * it (then false at once: a try never waits). Claiming a pair before inserting it means no insert of it waits for
 * another's commit: PostgreSQL's ON CONFLICT DO NOTHING waits for the transaction that inserted a conflicting row
 * until it commits, which on busy cores took over 10 ms (issue 24's row-lock waits). Hash collisions only send a pair
 * to issue_users_pending.
 */
const claimIssueUser = (row: string) =>
  sql`pg_try_advisory_xact_lock(${CLAIM_SPACE}, hashtext(${sql.ref(`${row}.app_key`)} || E'\n' || ${sql.ref(`${row}.fingerprint`)} || E'\n' || ${sql.ref(`${row}.anonymous_id`)}))`;

/**
 * Before the issues: the statement's distinct pairs, each claimed or not (at most `claims` of them), once (the part is
 * read twice, so PostgreSQL computes it once). The claimed ones are inserted, and an issue's user count grows by those
 * inserted (RETURNING); a pair issue_users has already is a conflict with a committed row, which does not wait. The
 * others that this statement's snapshot does not show in issue_users (an index probe each, as a scalar sub-query: as
 * NOT EXISTS it may become an anti-join reading the whole table) are appended to issue_users_pending, where issues_live
 * counts those that issue_users lacks until the fold (foldIssueUsers) moves them. Known pairs are claimed too rather
 * than probed first: a try costs less than the probe, which the insert makes anyway.
 */
export const issueUserParts: readonly StatementPart[] = [
  part({
    name: 'issue_user_claims',
    reads: ['new_events'],
    query: (inputs) => sql`select s.app_key, s.fingerprint, s.anonymous_id,
      case when row_number() over () <= ${inputs.claims} then ${claimIssueUser('s')} else false end as claimed
    from (select distinct app_key, fingerprint, anonymous_id from new_events where anonymous_id is not null) s`,
  }),
  part({
    name: 'new_issue_users',
    reads: ['issue_user_claims'],
    writes: ['issue_users'],
    query: sql`insert into issue_users (app_key, fingerprint, anonymous_id)
    select app_key, fingerprint, anonymous_id from issue_user_claims where claimed
    order by 1, 2, 3
    on conflict do nothing
    returning app_key, fingerprint`,
  }),
  part({
    name: 'pending_issue_users',
    reads: ['issue_user_claims'],
    writes: ['issue_users_pending'],
    query: sql`insert into issue_users_pending (app_key, fingerprint, anonymous_id)
    select c.app_key, c.fingerprint, c.anonymous_id from issue_user_claims c
    where not c.claimed and (select true from issue_users k
      where k.app_key = c.app_key and k.fingerprint = c.fingerprint and k.anonymous_id = c.anonymous_id) is null`,
  }),
];

/**
 * One round of the fold of issue_users_pending: up to FOLD_CLAIMS pending pairs, each moved into issue_users if the
 * fold can claim it, and each pair new there adds one to its issue's user_count, in one statement, so a reader sees
 * the pair counted once, before or after. A pair claimed by a statement still running stays for a later fold (so the
 * fold never waits for a pair), as do pairs committed during a fold. Every pending row has its app (the foreign key
 * cascades), which the insert's own foreign key checks again.
 */
const foldSomeIssueUsers = sql<{ picked: number; moved: number; written: number }>`with picked as materialized (
    select ctid as row_id, app_key, fingerprint, anonymous_id from issue_users_pending limit ${sql.lit(FOLD_CLAIMS)}),
  claimed as materialized (select * from picked p where ${claimIssueUser('p')}),
  moved as (
    delete from issue_users_pending q using claimed c where q.ctid = c.row_id
    returning q.app_key, q.fingerprint, q.anonymous_id),
  added as (
    insert into issue_users (app_key, fingerprint, anonymous_id)
    select distinct app_key, fingerprint, anonymous_id from moved order by 1, 2, 3
    on conflict do nothing returning app_key, fingerprint),
  updated as (
    update issues i set user_count = i.user_count + a.users
    from (select app_key, fingerprint, count(*) as users from added group by 1, 2) a
    where i.app_key = a.app_key and i.fingerprint = a.fingerprint
    returning 1)
  select (select count(*) from picked)::int as picked, m.n as moved, m.n + (select count(*) from updated)::int as written
  from (select count(*)::int as n from moved) m`;

/**
 * The fold of issue_users_pending (counters.ts runs it, one process at a time): rounds of foldSomeIssueUsers, each its
 * own transaction (its claims end with it), while a round picks and moves a full FOLD_CLAIMS of pairs, at most
 * FOLD_ROUNDS a fold. Returns the rows written: pending rows deleted and issues updated.
 */
export async function foldIssueUsers(db: Kysely<Database>): Promise<number> {
  let written = 0;
  for (let round = 0; round < FOLD_ROUNDS; round++) {
    const { rows } = await foldSomeIssueUsers.execute(db);
    const { picked = 0, moved = 0, written: wrote = 0 } = rows[0] ?? {};
    written += wrote;
    if (picked < FOLD_CLAIMS || moved < picked) break;
  }
  return written;
}

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
