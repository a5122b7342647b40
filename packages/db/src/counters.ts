// The counter ledger (migration 0017): the write statement appends each counter's deltas to `<counter>_deltas` (plain
// inserts, no row lock: concurrent statements and processes never wait for each other on a count), and foldCounters,
// run by one process at a time about twice a second, moves them into `<counter>_folded`. Readers read the view
// `<counter>` (folded plus unfolded, summed per key), so a count is exact as soon as the statement that changed it has
// committed. An issue's counts live in its own row, which the list sorts by: issue_deltas is folded into issues, and
// issues_live adds the unfolded part. Spike alerts are decided by the fold of the per-minute counts
// (write-path/alerts.ts). Sentry, GitLab and Discourse buffer counters in Redis and are only eventually exact; this is
// the same idea inside PostgreSQL's transaction.
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from './schema';
import { foldSpikes } from './write-path/alerts';
import { foldIssueUsers } from './write-path/distinct-users';

/**
 * A counter: the view's name, its key (the folded table's primary key), its summed columns, and the columns it keeps
 * the least or greatest value of (times; a delta may leave them null).
 */
export interface Counter {
  readonly table: string;
  readonly keys: readonly string[];
  readonly sums: readonly string[];
  readonly mins?: readonly string[];
  readonly maxes?: readonly string[];
  /** The row whose deletion takes the counter's rows with it: deltas of a deleted one are dropped, not folded. */
  readonly owner: 'apps' | 'organizations';
}

export const counters: readonly Counter[] = [
  {
    table: 'app_totals',
    keys: ['app_key'],
    sums: ['events', 'errors', 'failed_requests', 'issues', 'users'],
    owner: 'apps',
  },
  {
    table: 'app_hourly',
    keys: ['app_key', 'hour_start'],
    sums: ['events', 'errors', 'failed_requests'],
    owner: 'apps',
  },
  { table: 'issue_days', keys: ['app_key', 'fingerprint', 'day'], sums: ['events'], owner: 'apps' },
  {
    table: 'issue_contexts',
    keys: ['app_key', 'fingerprint', 'release', 'environment', 'user_agent'],
    sums: ['events'],
    owner: 'apps',
  },
  { table: 'issue_tags', keys: ['app_key', 'fingerprint', 'key', 'value'], sums: ['events'], owner: 'apps' },
  {
    table: 'app_releases',
    keys: ['app_key', 'release'],
    sums: ['events', 'new_issues'],
    mins: ['first_seen'],
    maxes: ['last_seen'],
    owner: 'apps',
  },
  { table: 'outcomes', keys: ['app_key', 'hour_start', 'reason'], sums: ['events'], owner: 'apps' },
  { table: 'activity_by_prev_day', keys: ['app_key', 'kind', 'day', 'prev_day'], sums: ['links'], owner: 'apps' },
  { table: 'activity_by_hour', keys: ['app_key', 'kind', 'hour', 'prev_day'], sums: ['links'], owner: 'apps' },
  { table: 'org_totals', keys: ['org_id'], sums: ['users'], owner: 'organizations' },
];

const ids = (names: readonly string[]) => sql.join(names.map((name) => sql.id(name)));

const ownerKey = { apps: sql`app_key`, organizations: sql`org_id` } as const;
const ownerColumn = { apps: sql`app_key`, organizations: sql`id` } as const;

/**
 * Moves a counter's deltas into its folded rows, in one statement: the deltas this snapshot sees are deleted and
 * added, so a reader (one snapshot too) sees each delta exactly once, before or after. Deltas committed meanwhile wait
 * for the next fold.
 */
function foldCounter({ table, keys, sums, mins = [], maxes = [], owner }: Counter) {
  const folded = sql.table(`${table}_folded`);
  // Each column with how deltas combine, in a group and into the folded row (least and greatest skip a null).
  const columns = [
    ...sums.map((name) => ({ name, group: sql`sum`, add: sql`t.${sql.id(name)} + excluded.${sql.id(name)}` })),
    ...mins.map((name) => ({ name, group: sql`min`, add: sql`least(t.${sql.id(name)}, excluded.${sql.id(name)})` })),
    ...maxes.map((name) => ({
      name,
      group: sql`max`,
      add: sql`greatest(t.${sql.id(name)}, excluded.${sql.id(name)})`,
    })),
  ];
  return sql`with moved as (delete from ${sql.table(`${table}_deltas`)} returning *)
    insert into ${folded} as t (${ids(keys)}, ${ids(columns.map(({ name }) => name))})
    select ${ids(keys)}, ${sql.join(columns.map(({ name, group }) => sql`${group}(${sql.id(name)})`))} from moved m
    where exists (select from ${sql.table(owner)} o where o.${ownerColumn[owner]} = m.${ownerKey[owner]})
    group by ${ids(keys)} order by ${ids(keys)}
    on conflict (${ids(keys)}) do update set ${sql.join(columns.map(({ name, add }) => sql`${sql.id(name)} = ${add}`))}`;
}

/**
 * Issue deltas added up per issue: what the fold adds to an issue's row, and what the list adds to its folded values
 * to sort by exact ones. `deltas`: issue_deltas, or rows taken from it.
 */
export const sumIssueDeltas = (deltas: RawBuilder<unknown>) =>
  sql`select app_key, fingerprint, sum(events) as events, sum(users) as users, min(first_seen) as first_seen,
      max(last_seen) as last_seen,
      (array_agg(level order by last_seen desc))[1] as level,
      (array_agg(last_release order by last_seen desc) filter (where last_release is not null))[1] as last_release
    from ${deltas} group by 1, 2`;

/**
 * Issues' deltas into their rows. The folder is the only writer of these columns, so it locks an issue's row only for
 * this statement (triage may wait that long); the write path never locks a row to count.
 */
const foldIssues = sql`with moved as (delete from issue_deltas returning *),
  summed as (${sumIssueDeltas(sql`moved`)})
  update issues i set
    event_count = i.event_count + s.events,
    user_count = i.user_count + s.users,
    first_seen_at = least(i.first_seen_at, s.first_seen),
    last_seen_at = greatest(i.last_seen_at, s.last_seen),
    level = case when s.last_seen >= i.last_seen_at then coalesce(s.level, i.level) else i.level end,
    last_release = case when s.last_seen >= i.last_seen_at then coalesce(s.last_release, i.last_release)
      else coalesce(i.last_release, s.last_release) end
  from summed s where i.app_key = s.app_key and i.fingerprint = s.fingerprint`;

// Any constant shared by every process: pg_try_advisory_lock takes one int8. "ledger" in ASCII.
const FOLD_LOCK = sql.lit(0x6c6564676572);

/** Every table of the ledger that the write statement appends to, and the fold that empties it. */
const folds: ReadonlyArray<{
  deltas: string;
  fold: RawBuilder<unknown> | ((db: Kysely<Database>) => Promise<number>);
}> = [
  ...counters.map((counter) => ({ deltas: `${counter.table}_deltas`, fold: foldCounter(counter) })),
  { deltas: 'issue_deltas', fold: foldIssues },
  // Not deltas but pairs (write-path/distinct-users.ts): emptied the same way, and vacuumed with the rest.
  { deltas: 'issue_users_pending', fold: foldIssueUsers },
  { deltas: 'issue_minute_deltas', fold: foldSpikes },
];
/** The ledger's tables, by name. */
export const ledgerTables: readonly string[] = folds.map(({ deltas }) => deltas);

/**
 * Which ledger tables hold deltas, in one statement: a fold runs only for those. An idle server otherwise ran every
 * fold twice a second (each mostly planning); under load, counters that rarely change (outcomes, an
 * organization's users) are skipped too. A delta committed after this look waits for the next fold, as one committed
 * during a fold does.
 */
const pendingFolds = sql<Record<string, boolean>>`select ${sql.join(
  ledgerTables.map((table, i) => sql`exists (select from ${sql.table(table)}) as ${sql.id(`t${i}`)}`),
)}`;

/**
 * The ledger's tables made reusable: a fold deletes every row it moves, and until a vacuum the dead rows keep their
 * pages, which every fold and every read of the deltas then scans. Autovacuum may come a minute late or, where it is
 * off, never: on this project's CI machine a 1M-event seed left 200 MB behind a handful of live rows, and each fold took
 * 30 ms and each issue list 5 ms more (docs/performance.md). SKIP_LOCKED: a table another vacuum holds is left to it.
 * INDEX_CLEANUP ON: vacuum's shortcut past the indexes left the dead rows' line pointers in place, and pages full of
 * them took no new rows. TRUNCATE (giving empty pages at the end back) only when the fold found nothing to move: it
 * locks the table out, and under load writers queued behind it (lock waits > 10 ms at WORKERS=4) and then waited to
 * extend it again.
 */
const vacuumLedger = (truncate: boolean) =>
  sql.raw(
    // Unsaid when quiet, so a table's own vacuum_truncate (docs/scaling.md, replicas) still decides.
    `vacuum (skip_locked, index_cleanup on${truncate ? '' : ', truncate false'}) ${ledgerTables.join(', ')}`,
  );

/**
 * Folds every counter's deltas, unless another process is folding now (then it returns false at once: that one takes
 * these deltas too, or the next fold does); else returns how many rows the fold wrote (0: nothing to fold). Each
 * counter's fold is its own transaction, so the rows one locks are locked only while it runs; the session's advisory
 * lock spans them all, on one connection. `vacuum`: then vacuums the ledger's tables too (the folder asks every second
 * while deltas arrive, and once more when they stop).
 */
export async function foldCounters(
  db: Kysely<Database>,
  options: { wait?: boolean; vacuum?: boolean } = {},
): Promise<number | false> {
  return db.connection().execute(async (connection) => {
    // `wait`: until the fold running now ends (tests that must see a fold happen, e.g. a spike alert).
    const { rows } = options.wait
      ? await sql<{ locked: boolean }>`select pg_advisory_lock(${FOLD_LOCK}) is not null as locked`.execute(connection)
      : await sql<{ locked: boolean }>`select pg_try_advisory_lock(${FOLD_LOCK}) as locked`.execute(connection);
    if (!rows[0]?.locked) return false;
    try {
      const moved = await foldAll(connection);
      // Outside any transaction, as VACUUM must be; under the advisory lock, so one process vacuums at a time.
      if (options.vacuum) await vacuumLedger(moved === 0).execute(connection);
      return moved;
    } finally {
      await sql`select pg_advisory_unlock(${FOLD_LOCK})`.execute(connection);
    }
  });
}

/**
 * Every fold with deltas to move (pendingFolds), on the caller's connection or transaction (a test counts the row
 * updates one transaction makes); returns how many rows they wrote (0: nothing was folded).
 */
export async function foldAll(db: Kysely<Database>): Promise<number> {
  const pending = (await pendingFolds.execute(db)).rows[0] ?? {};
  let written = 0;
  for (const [i, { fold }] of folds.entries())
    if (pending[`t${i}`])
      written += typeof fold === 'function' ? await fold(db) : Number((await fold.execute(db)).numAffectedRows ?? 0);
  return written;
}
