import {
  DAY,
  dailySeries,
  type EventCursor,
  type EventLevel,
  type EventType,
  type Issue,
  type IssueCursor,
  type IssueSort,
  type IssueStatus,
  issueId,
  issueListSeriesDays,
  issueSeriesDays,
  presentEvent,
  type SearchTerm,
  type StoredEvent,
  type StoredPayload,
  seriesDayStarts,
} from '@collector/domain';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { PREPARED, PREPARED_SEARCH, PREPARED_SHAPE, prepared } from './connection';
import { sumIssueDeltas } from './counters';
import { type IssueKey, issueKeyRows } from './issue-keys';
import { assignedTo, searchFilter } from './issue-search';
import { unhandledOfKeys, unhandledSet } from './issue-tags';
import { assigneesByIssue, assigneesOfKeys } from './issue-work';
import { appKeyed } from './keys';
import type { Database, IssueRow } from './schema';

export function toIssue(row: IssueRow): Issue {
  return {
    id: issueId(row.app_key, row.fingerprint),
    appKey: row.app_key,
    fingerprint: row.fingerprint,
    message: row.message,
    errorType: row.error_type,
    eventCount: row.event_count,
    userCount: row.user_count,
    firstSeenAt: row.first_seen_at,
    lastSeenAt: row.last_seen_at,
    status: row.status as IssueStatus,
    statusChangedAt: row.status_changed_at,
    regressedAt: row.regressed_at,
    culprit: row.culprit,
    level: row.level as EventLevel,
    lastRelease: row.last_release,
    groupingVersion: row.grouping_version,
  };
}

/** The column each sort of the list reads, descending. */
const sortColumns = {
  lastSeen: 'last_seen_at',
  firstSeen: 'first_seen_at',
  events: 'event_count',
  users: 'user_count',
} as const satisfies Record<IssueSort, keyof IssueRow>;

/** The exact value of each sort's column: the issue's folded value (i) with its unfolded deltas (d) added. */
const exactSortKeys: Record<IssueSort, RawBuilder<number>> = {
  lastSeen: sql`greatest(i.last_seen_at, d.last_seen)`,
  firstSeen: sql`least(i.first_seen_at, d.first_seen)`,
  events: sql`i.event_count + coalesce(d.events, 0)`,
  users: sql`i.user_count + coalesce(d.users, 0)`,
};

export interface IssueListQuery {
  /** The organizations whose apps' issues are read. */
  orgIds: readonly string[];
  appKey?: string | undefined;
  /** A user id, or null for unassigned issues. */
  assignee?: string | null | undefined;
  statuses?: readonly IssueStatus[] | undefined;
  /** Search terms (parseSearch), all to hold beside the other filters. */
  terms?: readonly SearchTerm[] | undefined;
  /** The caller's user id, for `assigned:me` terms. */
  me?: string | undefined;
  type?: EventType | undefined;
  release?: string | undefined;
  environment?: string | undefined;
  sort: IssueSort;
  after?: IssueCursor | undefined;
  limit: number;
}

/** An issue of a list's page: its key, and the exact value of the sort's column when the page was read (the cursor's). */
export interface IssueListEntry {
  appKey: string;
  fingerprint: string;
  sortValue: number;
}

/**
 * The user's issues that match the filters, in the sort's order (ties: appKey, then fingerprint, descending), with how
 * many match in all; reads one row more than asked to tell whether a next page exists. Keys only: the page's rows and
 * what the list shows beside them are read by key afterwards (issueListPage).
 * The filters are read from the user's issue rows, which are few (thousands, against millions of events): one bounded
 * scan finds the matching keys, mostly from the index that holds what the list filters and sorts by (migration 0024),
 * once for the count and once for the page, which seeks past the cursor on the sort key.
 * The search's free text reads search_text, lower-cased when the issue was written, so it costs a byte search per issue.
 * Release, environment and the search's facet terms come from issue_facets, whose key finds an app's issues seen with a
 * value (issue-search.ts).
 * The page is sorted by exact values (counters.ts): an issue's folded value plus its unfolded deltas (but for users a
 * statement could not claim, which issues_live counts and the sort by users takes at the next fold: a lag the contract
 * allows; write-path/distinct-users.ts). Only issues with deltas (d: a fold's worth, few) can differ from their folded
 * value, so the page is the first of: the top limit + |d| issues by folded value less those with deltas, and the issues
 * with deltas by exact value. That is exact, and only the few issues with deltas are joined to them: adding them to
 * every matching issue cost a fifth of the statement. Those are found from d, by the issues' key, with the filters
 * applied to them again: joined to the matching issues instead, on a misestimate of how many match (facet conditions'
 * selectivities multiply), PostgreSQL could read every delta again for every issue, as the list once did (474 ms where
 * 18 was due, docs/performance.md).
 */
export async function listIssues(
  db: Kysely<Database>,
  query: IssueListQuery,
): Promise<{ page: IssueListEntry[]; hasMore: boolean; total: number }> {
  const take = query.limit + 1;
  const folded = sql.ref(`i.${sortColumns[query.sort]}`);
  const appConditions = [sql`a.org_id = any(${[...query.orgIds]}::text[])`];
  if (query.appKey !== undefined) appConditions.push(sql`a.app_key = ${query.appKey}`);
  const apps = sql`select a.app_key from apps a where ${sql.join(appConditions, sql` and `)}`;
  // The issue's own conditions; the apps' are added apart, as a join (the issues with deltas) or a key list (matching).
  const conditions: RawBuilder<boolean>[] = [];
  if (query.assignee !== undefined) conditions.push(assignedTo(query.assignee));
  if (query.statuses !== undefined) conditions.push(sql`i.status in (${sql.join(query.statuses)})`);
  if (query.type !== undefined) conditions.push(sql`i.type = ${query.type}`);
  // release= and environment= are the search's terms of the same names.
  const terms = [...(query.terms ?? [])];
  for (const key of ['release', 'environment'] as const) {
    const text = query[key];
    if (text !== undefined)
      terms.push({ key, negated: false, values: [{ match: 'exact', text }], raw: `${key}:${text}` });
  }
  const filter = searchFilter(terms, query.me, apps);
  // Matching issues by their apps' keys, which the list's covering index (issues_list) leads with: one index-only range
  // per app. Joined to apps instead, PostgreSQL read the whole table (seq scan) for an organization's issues.
  const matches = sql.join(
    [sql`i.app_key = any(array(${apps}))`, ...conditions, ...filter.scan.conditions],
    sql` and `,
  );
  const probed = sql.join([...appConditions, ...conditions, ...filter.probes], sql` and `);
  const after = query.after;
  const past = (key: RawBuilder<unknown>) =>
    after
      ? sql`where (${key}, m.app_key, m.fingerprint) < (${after.value}::int8, ${after.appKey}, ${after.fingerprint})`
      : sql``;
  // The text is one of a family per sort, filters, cursor and the search terms' kinds (their values are parameters):
  // prepared, so each connection plans a shape once; searches are a family of their own (connection.ts). A search
  // planned at every call cost 3.6 ms of a 15 (release + environment), and its generic plan ran faster than the custom
  // ones (docs/performance.md). Not with a pattern, whose generic plan reads every row of the facet (page:/checkout*:
  // 10-12 ms against 1.6 + 8).
  const prepare = filter.patterns ? sql`` : sql.raw(terms.length > 0 ? PREPARED_SEARCH : PREPARED_SHAPE);
  const { rows } = await sql<{
    total: number;
    app_key: string | null;
    fingerprint: string;
    sort_key: number;
  }>`${prepare}
    with d as (${sumIssueDeltas(sql`issue_deltas`)}),
    matching as materialized (
      select i.app_key, i.fingerprint, ${folded} as folded from issues i
      ${filter.scan.join}
      where ${matches}
    ),
    candidates as (
      select m.app_key, m.fingerprint, m.folded as sort_key from (
        select m.app_key, m.fingerprint, m.folded from matching m ${past(sql`m.folded`)}
        order by m.folded desc, m.app_key desc, m.fingerprint desc limit ${take} + (select count(*) from d)
      ) m where not exists (select from d where d.app_key = m.app_key and d.fingerprint = m.fingerprint)
      union all
      select i.app_key, i.fingerprint, ${exactSortKeys[query.sort]} from d
      join issues i on i.app_key = d.app_key and i.fingerprint = d.fingerprint join apps a on a.app_key = i.app_key
      where ${probed}
    ),
    page as (
      select m.app_key, m.fingerprint, m.sort_key from candidates m ${past(sql`m.sort_key`)}
      order by m.sort_key desc, m.app_key desc, m.fingerprint desc limit ${take}
    )
    select t.total, p.app_key, p.fingerprint, p.sort_key::int8 as sort_key
    from (select count(*)::int8 as total from matching) t left join page p on true
    order by p.sort_key desc, p.app_key desc, p.fingerprint desc`.execute(db);
  const total = rows[0]?.total ?? 0;
  const page = rows.flatMap((row) =>
    row.app_key === null ? [] : [{ appKey: row.app_key, fingerprint: row.fingerprint, sortValue: row.sort_key }],
  );
  return { page: page.slice(0, query.limit), hasMore: page.length > query.limit, total };
}

/** The issues of keys `k` (issueKeyRows, in a WITH), with their exact counts and their key's place (n). */
const liveOfKeys = sql`select k.n, i.* from issues_live i join k using (app_key, fingerprint)`;

/**
 * Issues by key, with their exact counts (issues_live), in the keys' order; a key with no issue (deleted since) is
 * left out. Prepared: one text for any number of keys.
 */
export async function liveIssues(db: Kysely<Database>, keys: readonly IssueKey[]): Promise<IssueRow[]> {
  if (keys.length === 0) return [];
  const { rows } = await sql<IssueRow & { n: number }>`${sql.raw(PREPARED)}
    with k as (${issueKeyRows(keys)}) ${liveOfKeys} order by n`.execute(db);
  return rows.map(({ n: _n, ...row }) => row);
}

/** An issue of an app the caller was authorized to read. */
export async function findIssue(
  db: Kysely<Database>,
  query: { appKey: string; fingerprint: string },
): Promise<IssueRow | undefined> {
  return (await db.executeQuery(issueLive(db, query.appKey, query.fingerprint))).rows[0];
}

// Prepared, like the other reads of an issue's page: planning the view (its folded rows and deltas) cost more than
// running it.
const issueLive = prepared((db, appKey: string, fingerprint: string) =>
  db
    .selectFrom('issues_live')
    .selectAll('issues_live')
    .where('issues_live.app_key', '=', appKey)
    .where('issues_live.fingerprint', '=', fingerprint),
);

/** What the event reads below need of an issue: its key, and its first and last event's timestamps (its row's seen times). */
export interface IssueEventsKey {
  appKey: string;
  fingerprint: string;
  firstSeenAt: number;
  lastSeenAt: number;
}

/**
 * An issue's newest stored events (by timestamp, then eventId, descending) before `after` if given, at most `limit`,
 * with the `columns` asked for. events is partitioned by UTC day (migration 0011), and one query over the whole issue
 * would plan and probe every day's partition, ~93 at the default retention, for a first page that the newest day
 * usually fills. So the days are read newest first, in windows each pruned to its own partitions when it is planned:
 * from the day of the issue's newest event (or of the cursor) on, then the 1, 2, 4, ... days before, until `limit`
 * rows are found or a window reaches the issue's first event, before which it has none.
 * The first window is open above: events stored since the issue's row was read are not left out. An event older than
 * the issue's first one, stored since, shows at the next read.
 */
async function newestIssueEvents<Row extends object>(
  db: Kysely<Database>,
  issue: IssueEventsKey,
  columns: RawBuilder<unknown>,
  limit: number,
  after: EventCursor | undefined,
  /** Joined to each event row, e.g. a lateral function over its payload that `columns` read. */
  join: RawBuilder<unknown> = sql``,
): Promise<Row[]> {
  const rows: Row[] = [];
  const pastCursor = after ? sql`and (timestamp, event_id) < (${after.timestamp}::int8, ${after.eventId})` : sql``;
  let upper: number | undefined = after ? after.timestamp + 1 : undefined;
  let lower = Math.floor(Math.min(after?.timestamp ?? Number.POSITIVE_INFINITY, issue.lastSeenAt) / DAY) * DAY;
  let span = DAY;
  for (;;) {
    const last = lower <= issue.firstSeenAt;
    const below = upper === undefined ? sql`` : sql`and timestamp < ${upper}::int8`;
    const { rows: page } = await sql<Row>`
      select ${columns} from events ${join}
      where app_key = ${issue.appKey} and fingerprint = ${issue.fingerprint} and timestamp >= ${last ? issue.firstSeenAt : lower}::int8 ${below} ${pastCursor}
      order by timestamp desc, event_id desc limit ${limit - rows.length}`.execute(db);
    rows.push(...page);
    if (rows.length >= limit || last) return rows;
    upper = lower;
    lower -= span;
    span *= 2;
  }
}

/** An issue's events, newest first, each as it was stored plus the time it was received; one more than asked when there are. */
export async function listIssueEvents(
  db: Kysely<Database>,
  query: IssueEventsKey & { limit: number; after?: EventCursor | undefined },
): Promise<{ events: Array<StoredEvent & { receivedAt: number }>; hasMore: boolean }> {
  const rows = await newestIssueEvents<{ payload: StoredPayload; received_at: number }>(
    db,
    query,
    sql`payload, received_at`,
    query.limit + 1,
    query.after,
  );
  const events = rows.slice(0, query.limit).map((row) => presentEvent({ ...row.payload, receivedAt: row.received_at }));
  return { events, hasMore: rows.length > query.limit };
}

/** Events per UTC day over the issue's last 30 days at `now`, oldest first, every day present: from issue_days. */
export async function issueSeries(
  db: Kysely<Database>,
  query: { appKey: string; fingerprint: string; now: number },
): Promise<Array<{ start: number; events: number }>> {
  const firstDay = Math.floor(query.now / DAY) - issueSeriesDays + 1;
  const days = issueDays(db, query.appKey, query.fingerprint, firstDay, firstDay + issueSeriesDays - 1);
  return dailySeries((await db.executeQuery(days)).rows, query.now);
}

const issueDays = prepared((db, appKey: string, fingerprint: string, firstDay: number, lastDay: number) =>
  db
    .selectFrom('issue_days')
    .select(['day', 'events'])
    .where('app_key', '=', appKey)
    .where('fingerprint', '=', fingerprint)
    .where('day', '>=', firstDay)
    .where('day', '<=', lastDay),
);

/** What the list shows of a page of issues, besides their keys (issueListPage). */
export interface IssueListPage {
  /** The issues' rows with their exact counts, in the keys' order; a key with no issue (deleted since) left out. */
  rows: IssueRow[];
  /** The assignee of each issue that has one, by `appKey\u0000fingerprint`, as issueAssignees. */
  assignees: Map<string, { id: string; email: string }>;
  /** The issues with an unhandled event, as unhandledIssues. */
  unhandled: Set<string>;
  /** Each issue's events per UTC day over the last issueListSeriesDays days at `now`, every day present. */
  series: Map<string, Array<{ start: number; events: number }>>;
}

/**
 * A page of the list's issues by key, in one statement: their rows, assignees, unhandled flags and sparklines, each a
 * JSON array of its own. As four statements, each cost the collector ~0.25-0.4 ms of CPU (Kysely, the pool, the
 * driver's parsing: more than PostgreSQL took for most of them); JSON.parse reads these arrays faster than the driver
 * parses rows. The sparklines' (issue, day) rows come as three arrays, the issue as its place in the page, and are
 * added up here (the issue_days view's two tables may both have a day): summed in PostgreSQL per issue, with a
 * GROUP BY and two ordered aggregates each, the same took twice as long.
 * Prepared: the text is the same for every page (the keys and days are parameters).
 */
export async function issueListPage(
  db: Kysely<Database>,
  keys: readonly IssueKey[],
  now: number,
): Promise<IssueListPage> {
  // Each issue's events per day of the series, oldest first: plain arrays and index loops, as a list call's garbage
  // (1.2 MB a call; a scavenge every ~20 calls, each a few ms: the list's p95) grew with Maps and iterators here.
  const days = keys.map(() => new Array<number>(issueListSeriesDays).fill(0));
  const page: IssueListPage = { rows: [], assignees: new Map(), unhandled: new Set(), series: new Map() };
  if (keys.length > 0) {
    const firstDay = Math.floor(now / DAY) - issueListSeriesDays + 1;
    const lastDay = firstDay + issueListSeriesDays - 1;
    const { rows } = await sql<{
      rows: Array<IssueRow & { n: number }> | null;
      assignees: Array<{ app_key: string; fingerprint: string; id: string; email: string }> | null;
      unhandled: Array<{ app_key: string; fingerprint: string }> | null;
      series: [number[] | null, number[] | null, number[] | null];
    }>`${sql.raw(PREPARED)}
      with k as (${issueKeyRows(keys)})
      select (select json_agg(r) from (${liveOfKeys}) r) as rows,
        (select json_agg(a) from (${assigneesOfKeys}) a) as assignees,
        (select json_agg(u) from (${unhandledOfKeys}) u) as unhandled,
        (select json_build_array(json_agg(c.n), json_agg(c.day), json_agg(c.events)) from (
          select k.n, f.day, f.events from k join issue_days_folded f
          on f.app_key = k.app_key and f.fingerprint = k.fingerprint and f.day between ${firstDay} and ${lastDay}
          union all
          select k.n, d.day, d.events from k join issue_days_deltas d
          on d.app_key = k.app_key and d.fingerprint = k.fingerprint and d.day between ${firstDay} and ${lastDay}
        ) c) as series`.execute(db);
    const row = rows[0];
    // Each row keeps its place `n`, which no reader of an IssueRow looks at: not copied without it.
    page.rows = (row?.rows ?? []).sort((a, b) => a.n - b.n);
    page.assignees = assigneesByIssue(row?.assignees ?? []);
    page.unhandled = unhandledSet(row?.unhandled ?? []);
    const [ns, dayNumbers, events] = row?.series ?? [null, null, null];
    for (let i = 0; i < (ns?.length ?? 0); i++) {
      const issueDays = days[(ns?.[i] ?? 0) - 1];
      const d = (dayNumbers?.[i] ?? 0) - firstDay;
      if (issueDays && d >= 0 && d < issueListSeriesDays) issueDays[d] = (issueDays[d] ?? 0) + (events?.[i] ?? 0);
    }
  }
  const starts = seriesDayStarts(now, issueListSeriesDays);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as IssueKey;
    const issueDays = days[i] as number[];
    page.series.set(
      appKeyed(key.appKey, key.fingerprint),
      starts.map((start, d) => ({ start, events: issueDays[d] ?? 0 })),
    );
  }
  return page;
}

/** An issue's events counted by release, environment and user agent (null: not sent): its kept counts. */
export async function issueEventContexts(
  db: Kysely<Database>,
  issue: { appKey: string; fingerprint: string },
): Promise<Array<{ release: string | null; environment: string | null; userAgent: string | null; events: number }>> {
  const { rows } = await db.executeQuery(issueContexts(db, issue.appKey, issue.fingerprint));
  return rows.map((row) => ({
    release: row.release === '' ? null : row.release,
    environment: row.environment === '' ? null : row.environment,
    userAgent: row.user_agent === '' ? null : row.user_agent,
    events: row.events,
  }));
}

const issueContexts = prepared((db, appKey: string, fingerprint: string) =>
  db
    .selectFrom('issue_contexts')
    .select(['release', 'environment', 'user_agent', 'events'])
    .where('app_key', '=', appKey)
    .where('fingerprint', '=', fingerprint),
);

/**
 * Sets an issue (of an app the caller was authorized to triage) to a status; undefined when there is no such issue.
 * `previous` is the status it had, for the issue's history.
 */
export async function setIssueStatus(
  db: Kysely<Database>,
  query: {
    appKey: string;
    fingerprint: string;
    status: IssueStatus;
    now: number;
    /** Not read: access is decided before (api/src/auth/authorize.ts). Kept so that older callers still compile. */
    userId?: string;
  },
): Promise<(IssueRow & { previous: IssueStatus }) | undefined> {
  const { rows } = await sql<{ previous: IssueStatus }>`
    update issues i set
      status = ${query.status},
      status_changed_at = case when i.status = ${query.status} then i.status_changed_at else ${query.now}::int8 end
    from issues p
    where p.app_key = i.app_key and p.fingerprint = i.fingerprint and i.app_key = ${query.appKey} and i.fingerprint = ${query.fingerprint}
    returning p.status as previous`.execute(db);
  const changed = rows[0];
  if (!changed) return undefined;
  // Read back with its exact counts (issues_live), which the updated row alone lacks (counters.ts).
  const row = await findIssue(db, query);
  return row && { ...row, previous: changed.previous };
}

/**
 * Sets the issues among `keys` of the organizations in `orgIds` to a status and returns them with the status each had
 * before; keys of other organizations' issues, or of none, are skipped. The rows are locked in key order first, the
 * order the write path locks them in, so a bulk change and a batch of events never wait on each other in a cycle.
 */
export async function setIssuesStatus(
  db: Kysely<Database>,
  query: {
    /** The organizations whose issues the caller may triage. */
    orgIds: readonly string[];
    keys: ReadonlyArray<{ appKey: string; fingerprint: string }>;
    status: IssueStatus;
    now: number;
  },
): Promise<Array<{ appKey: string; fingerprint: string; previous: IssueStatus }>> {
  if (query.keys.length === 0 || query.orgIds.length === 0) return [];
  const keys = sql.join(query.keys.map((key) => sql`(${key.appKey}, ${key.fingerprint})`));
  const { rows } = await sql<{ appKey: string; fingerprint: string; previous: IssueStatus }>`
    with locked as (
      select i.app_key, i.fingerprint, i.status from issues i join apps a on a.app_key = i.app_key
      where a.org_id = any(${[...query.orgIds]}::text[]) and (i.app_key, i.fingerprint) in (${keys})
      order by i.app_key, i.fingerprint
      for update of i
    )
    update issues i set
      status = ${query.status},
      status_changed_at = case when i.status = ${query.status} then i.status_changed_at else ${query.now}::int8 end
    from locked l
    where i.app_key = l.app_key and i.fingerprint = l.fingerprint
    returning i.app_key as "appKey", i.fingerprint, l.status as previous`.execute(db);
  return rows;
}

/** How many values of release and environment the suggestions list: the ones the most issues were seen with. */
export const FACET_SUGGESTIONS = 100;
/** How many tag keys the suggestions list, and how many values of each: the search box's, not a report. */
export const FACET_TAG_KEYS = 50;
export const FACET_TAG_VALUES = 20;

/**
 * The releases, environments and tags the issues of `orgIds`' apps (or of one app) were seen with, for the issue
 * list's suggestions: the values the most issues have first, at most FACET_SUGGESTIONS of each facet; of tags, the
 * keys with the most (issue, value) rows first, at most FACET_TAG_KEYS, with their FACET_TAG_VALUES commonest values.
 * One read of issue_facets' rows of those apps (one row per issue and value: thousands, not a row per event),
 * counted once per value and ranked in the same query.
 */
export async function issueFacetValues(
  db: Kysely<Database>,
  query: { orgIds: readonly string[]; appKey?: string | undefined },
): Promise<{ releases: string[]; environments: string[]; tags: Array<{ key: string; values: string[] }> }> {
  const apps =
    query.appKey === undefined
      ? sql`org_id = any(${[...query.orgIds]}::text[])`
      : sql`org_id = any(${[...query.orgIds]}::text[]) and app_key = ${query.appKey}`;
  // 'handled' is a facet too, but its values are the search's own (yes, no): it is not read.
  const { rows } = await sql<{ facet: string; value: string }>`
    with counted as (
      select facet, value, count(*) as issues from issue_facets
      where app_key = any(array(select app_key from apps where ${apps})) and facet <> 'handled'
      group by facet, value
    ), ranked as (
      select facet, value, row_number() over (partition by facet order by issues desc, value) as rank,
        sum(issues) over (partition by facet) as weight
      from counted
    ), tag_keys as (
      select facet, row_number() over (order by max(weight) desc, facet) as key_rank
      from ranked where facet like 'tag:%' group by facet
    )
    select r.facet, r.value from ranked r left join tag_keys k on k.facet = r.facet
    where (k.key_rank is null and r.rank <= ${FACET_SUGGESTIONS})
      or (k.key_rank <= ${FACET_TAG_KEYS} and r.rank <= ${FACET_TAG_VALUES})
    order by k.key_rank nulls first, r.facet, r.rank`.execute(db);
  const values = (facet: string) => rows.filter((row) => row.facet === facet).map((row) => row.value);
  const tags = new Map<string, string[]>();
  for (const row of rows) {
    if (!row.facet.startsWith('tag:')) continue;
    const key = row.facet.slice('tag:'.length);
    const list = tags.get(key);
    if (list) list.push(row.value);
    else tags.set(key, [row.value]);
  }
  return {
    releases: values('release'),
    environments: values('environment'),
    tags: [...tags].map(([key, tagValues]) => ({ key, values: tagValues })),
  };
}
