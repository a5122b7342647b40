// Bounded disk: the retention run (RETENTION_DAYS) and the cap per issue (MAX_EVENTS_PER_ISSUE). The service runs it at
// start and hourly (services/collector/src/retention-job.ts). It never holds a lock that stops ingestion for long:
//   - events is partitioned by UTC day (migration 0011). Days wholly older than the cut-off are dropped together, a
//     catalog change (a brief ACCESS EXCLUSIVE lock on events, asked for with a lock_timeout so that a waiting DROP
//     never holds the inserts queued behind it for long); the day that straddles the cut-off, and the default partition
//     (events whose day has no partition), are deleted in chunks of `chunk` rows, each chunk its own short statement.
//   - every deletion of events counts what it deletes per app and minute into deleted_event_minutes, atomically with the
//     deletion (the same statement, or the dropping transaction): overview_window() adds those counts to the events of
//     a window's partial edge hours (windowed-counts.ts), so a window starting in a deleted hour still counts them.
//   - partitions for the coming days are created ahead, standalone and then attached (ATTACH takes only SHARE UPDATE
//     EXCLUSIVE on events, which inserts do not conflict with).
//   - the cap deletes, per issue that passed it and grew since its last trim, the payloads older than its newest N,
//     in chunks.
//   - event ids are forgotten max(RETENTION_DAYS, 30) + 1 days after their event's day; activity_hours rows, once older
//     than anything the write path or a stored event can still link to (see ACTIVITY_MARGIN_DAYS); issue_days rows,
//     once older than any issue's series can show or the write path can add to (see ISSUE_DAYS_BACK).
// Every step is idempotent and tolerates another instance running the same step at once (PostgreSQL with several
// collectors): a partition created or dropped by the other is skipped.
import { DAY, HOUR, issueSeriesDays, limits } from '@collector/domain';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { ActivityKind, Database } from './schema';

/** Contract: event ids are remembered at least this long after their event's timestamp. */
export const EVENT_ID_MEMORY_DAYS = 30;
/**
 * activity_hours rows are kept this many days back at least: the write path links new hours to the hours of the last
 * 32 days (events are never older than 30 days, plus a 2-day margin: ingest.ts's keepFrom), so older rows are never
 * read or rewritten by it.
 */
const ACTIVITY_MARGIN_DAYS = 34;
/**
 * issue_days rows are kept for the days from this many before today on: an issue's series shows today and the
 * issueSeriesDays - 1 before it, the write path adds to days down to 30 back (events are at most limits.maxEventAgeMs
 * old when they arrive, so it never recreates a trimmed row), and 2 days more cover a collector whose clock, and so
 * whose today, is behind this one's (the same 2 days as ingest.ts's keepFrom).
 */
export const ISSUE_DAYS_BACK = Math.max(issueSeriesDays - 1, Math.ceil(limits.maxEventAgeMs / DAY)) + 2;
/** Days ahead of `now` that get a partition before events arrive for them (events may be 1 minute in the future). */
const DAYS_AHEAD = 2;
/** How long a DROP or ATTACH waits for its lock before giving up until the next run. */
const LOCK_TIMEOUT = '500ms';

export interface RetentionPolicy {
  /** Events whose timestamp is older than this many days are deleted. */
  retentionDays: number;
  /** Payloads kept per issue (the newest). */
  maxEventsPerIssue: number;
}

export interface RetentionReport {
  /** The cut-off: events with a timestamp before it are gone. */
  cutoff: number;
  partitionsCreated: number;
  partitionsDropped: number;
  /** Events deleted row by row (the straddling day and the default partition). */
  eventsDeleted: number;
  /** Events of the dropped partitions, counted (into deleted_event_minutes) before the drop. */
  eventsDropped: number;
  /** Payloads deleted by the cap per issue. */
  payloadsCapped: number;
  issuesCapped: number;
  eventIdsForgotten: number;
  activityRowsTrimmed: number;
  /** issue_days rows (an issue's events on one day) older than its series shows. */
  issueDaysTrimmed: number;
}

/** events_2026_11_23: the partition holding that UTC day (the same names as migration 0011). */
export function partitionName(day: number): string {
  return `events_${new Date(day * DAY).toISOString().slice(0, 10).replaceAll('-', '_')}`;
}

function dayOfPartition(name: string): number | undefined {
  const match = /^events_(\d{4})_(\d{2})_(\d{2})$/.exec(name);
  if (!match) return undefined;
  return Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) / DAY;
}

/** How the run deletes: `chunk` rows per statement; `signal` stops it between two statements (the service stopping). */
interface Pace {
  chunk: number;
  signal?: AbortSignal | undefined;
}

/** One retention run at time `now`. Aborted by `signal`, it stops between two statements and rejects. */
export async function runRetention(
  db: Kysely<Database>,
  policy: RetentionPolicy,
  now: number,
  options: { chunk?: number | undefined; signal?: AbortSignal | undefined } = {},
): Promise<RetentionReport> {
  const pace: Pace = { chunk: options.chunk ?? 5_000, signal: options.signal };
  const cutoff = now - policy.retentionDays * DAY;
  const report: RetentionReport = {
    cutoff,
    partitionsCreated: 0,
    partitionsDropped: 0,
    eventsDeleted: 0,
    eventsDropped: 0,
    payloadsCapped: 0,
    issuesCapped: 0,
    eventIdsForgotten: 0,
    activityRowsTrimmed: 0,
    issueDaysTrimmed: 0,
  };
  const today = Math.floor(now / DAY);
  // Days before the cut-off get no partition: an event that old when it arrives lands in the default partition and is
  // deleted by the next run, as the contract says.
  report.partitionsCreated = await createPartitions(
    db,
    Math.max(Math.floor(cutoff / DAY), today - EVENT_ID_MEMORY_DAYS - 1),
    today + DAYS_AHEAD,
  );
  const dropped = await dropPartitionsBefore(db, cutoff, pace);
  report.partitionsDropped = dropped.partitions;
  report.eventsDropped = dropped.events;
  report.eventsDeleted = await deleteEventsBefore(db, cutoff, pace);
  const capped = await capIssuePayloads(db, policy.maxEventsPerIssue, pace);
  report.payloadsCapped = capped.payloads;
  report.issuesCapped = capped.issues;
  report.eventIdsForgotten = await forgetEventIds(
    db,
    today - Math.max(policy.retentionDays, EVENT_ID_MEMORY_DAYS) - 1,
    pace,
  );
  const activityFrom = Math.floor(now / HOUR) - Math.max(policy.retentionDays, ACTIVITY_MARGIN_DAYS) * 24;
  report.activityRowsTrimmed = await trimActivityHours(db, activityFrom, pace);
  report.issueDaysTrimmed = await trimIssueDays(db, today - ISSUE_DAYS_BACK, pace);
  return report;
}

async function partitions(db: Kysely<Database>): Promise<Array<{ name: string; day: number }>> {
  const { rows } = await sql<{ name: string }>`
    select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'events'::regclass`.execute(
    db,
  );
  return rows.flatMap((row) => {
    const day = dayOfPartition(row.name);
    return day === undefined ? [] : [{ name: row.name, day }];
  });
}

/**
 * Adds deleted events to deleted_event_minutes: `deleted` names a CTE of the same statement with their app_key, timestamp
 * and type (the rows a DELETE returned, or those of a partition about to be dropped). Rows are upserted in key order,
 * so that concurrent runs lock them in the same order.
 */
const countDeleted = (deleted: RawBuilder<unknown>) => sql`
  insert into deleted_event_minutes as m (app_key, minute, events, errors, failed_requests)
  select app_key, (timestamp / 60000)::int4, count(*), count(*) filter (where type = 'error'), count(*) filter (where type = 'request')
  from ${deleted} group by 1, 2 order by 1, 2
  on conflict (app_key, minute) do update set
    events = m.events + excluded.events, errors = m.errors + excluded.errors, failed_requests = m.failed_requests + excluded.failed_requests`;

/** Deletes the events `where` selects and counts them into deleted_event_minutes, in one statement; how many it deleted. */
async function deleteAndCount(db: Kysely<Database>, where: RawBuilder<unknown>): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    with deleted as (delete from events where ${where} returning app_key, timestamp, type),
    counted as (${countDeleted(sql`deleted`)})
    select count(*)::int8 as n from deleted`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/** SQLSTATEs that mean another run got there first, or the lock was busy: this step waits for the next run. */
const SKIPPABLE = new Set(['42P07', '42P01', '42P17', '55P03', '40P01']);
const isSkippable = (error: unknown) => SKIPPABLE.has(String((error as { code?: unknown }).code));

async function createPartitions(db: Kysely<Database>, fromDay: number, toDay: number): Promise<number> {
  const existing = new Set((await partitions(db)).map((partition) => partition.day));
  let created = 0;
  for (let day = fromDay; day <= toDay; day++) {
    if (existing.has(day)) continue;
    const name = partitionName(day);
    try {
      await db.transaction().execute(async (tx) => {
        await sql`set local lock_timeout = ${sql.lit(LOCK_TIMEOUT)}`.execute(tx);
        // Created standalone and attached: CREATE TABLE ... PARTITION OF would lock events against inserts meanwhile.
        // The payload's compression (lz4 where the server has it, migration 0015) comes with LIKE.
        // Events of that day already in the default partition move with it (ATTACH refuses to leave them behind).
        await sql`create table ${sql.id(name)} (like events including defaults including constraints including compression)`.execute(
          tx,
        );
        await sql`
          with moved as (delete from events_default where timestamp >= ${day * DAY} and timestamp < ${(day + 1) * DAY} returning *)
          insert into ${sql.id(name)} select * from moved`.execute(tx);
        await sql`alter table events attach partition ${sql.id(name)} for values from (${sql.lit(day * DAY)}) to (${sql.lit((day + 1) * DAY)})`.execute(
          tx,
        );
      });
      created += 1;
    } catch (error) {
      if (!isSkippable(error)) throw error;
    }
  }
  return created;
}

/**
 * Drops every partition wholly before the cut-off in one transaction: DROP takes an ACCESS EXCLUSIVE lock on events,
 * and one short lock (however many days) stalls ingestion less than one per day would. Before the drop, in the same
 * transaction, their events are counted into deleted_event_minutes, under a SHARE lock on those partitions only: it
 * keeps their rows as counted until the drop (no late event is inserted into them, no other collector's run deletes
 * from them meanwhile) while inserts into every other day go on. A writer waiting on it would wait for the count, and
 * one holding events while it waits would deadlock with the DROP: the lock_timeout ends that at once, on this side
 * (the days are deleted in chunks below instead), or PostgreSQL aborts the writer, which the event writer retries.
 */
async function dropPartitionsBefore(
  db: Kysely<Database>,
  cutoff: number,
  pace: Pace,
): Promise<{ partitions: number; events: number }> {
  const expired = (await partitions(db)).filter((partition) => (partition.day + 1) * DAY <= cutoff);
  if (expired.length === 0) return { partitions: 0, events: 0 };
  const tables = sql.join(expired.map((partition) => sql.id(partition.name)));
  try {
    return await db.transaction().execute(async (tx) => {
      await sql`set local lock_timeout = ${sql.lit(LOCK_TIMEOUT)}`.execute(tx);
      await sql`lock table ${tables} in share mode`.execute(tx);
      let events = 0;
      for (const partition of expired) events += await countPartition(tx, partition.name, pace);
      await sql`drop table ${tables}`.execute(tx);
      return { partitions: expired.length, events };
    });
  } catch (error) {
    // Busy, or the count outlasted the statement timeout on a loaded server (57014): their rows are deleted in chunks
    // below instead, counted as they go, and the tables dropped next time. Failing the run here would leave the whole
    // day to the next run, an hour later, and the one after.
    if (!isSkippable(error) && (error as { code?: unknown }).code !== '57014') throw error;
    return { partitions: 0, events: 0 };
  }
}

/**
 * Counts a partition's events into deleted_event_minutes, per app through its (app_key, timestamp) index (index-only: the
 * index carries the type), in ranges of `chunk` rows like the deletes, so no statement comes near the statement timeout
 * however large the day or busy the server (with ranges of 20 x `chunk` rows, a run dropping a million events under
 * full ingestion load failed and was left to the next hour; a statement past the timeout is the likely cause). A range
 * ends at a timestamp and takes every row of its ties.
 */
async function countPartition(db: Kysely<Database>, name: string, { chunk, signal }: Pace): Promise<number> {
  const table = sql.id(name);
  const { rows: apps } = await sql<{ app_key: string }>`select app_key from apps order by app_key`.execute(db);
  let counted = 0;
  for (const { app_key: appKey } of apps) {
    let after = Number.MIN_SAFE_INTEGER;
    for (;;) {
      signal?.throwIfAborted();
      const { rows } = await sql<{ timestamp: number }>`
        select timestamp from ${table} where app_key = ${appKey} and timestamp > ${after} order by timestamp offset ${chunk - 1} limit 1`.execute(
        db,
      );
      const end = rows[0]?.timestamp;
      const upTo = end === undefined ? sql`` : sql`and timestamp <= ${end}`;
      const { rows: sums } = await sql<{ n: number }>`
        with counted_rows as (select app_key, timestamp, type from ${table} where app_key = ${appKey} and timestamp > ${after} ${upTo}),
        counted as (${countDeleted(sql`counted_rows`)})
        select count(*)::int8 as n from counted_rows`.execute(db);
      counted += Number(sums[0]?.n ?? 0);
      if (end === undefined) break;
      after = end;
    }
  }
  return counted;
}

/**
 * Events before the cut-off that no dropped partition took: per app, through events_app_timestamp_window, oldest first,
 * `chunk` at a time (a chunk ends at a timestamp, so ties may make one a little larger).
 */
async function deleteEventsBefore(db: Kysely<Database>, cutoff: number, { chunk, signal }: Pace): Promise<number> {
  const { rows: apps } = await sql<{ app_key: string }>`select app_key from apps order by app_key`.execute(db);
  let deleted = 0;
  for (const { app_key: appKey } of apps) {
    for (;;) {
      signal?.throwIfAborted();
      const { rows } = await sql<{ timestamp: number }>`
        select timestamp from events where app_key = ${appKey} and timestamp < ${cutoff}
        order by timestamp offset ${chunk} limit 1`.execute(db);
      const end = rows[0]?.timestamp ?? cutoff;
      deleted += await deleteAndCount(db, sql`app_key = ${appKey} and timestamp < ${end}`);
      if (end >= cutoff) break;
    }
  }
  return deleted;
}

/**
 * Issues that passed the cap and grew since they were last trimmed (or were trimmed to a higher cap) keep the payloads
 * of their newest `max` events (order: timestamp, then eventId, as the issue's event list shows them). Counts live in
 * issues and are untouched; the ids stay in event_ids, so a retry is still a duplicate.
 */
async function capIssuePayloads(
  db: Kysely<Database>,
  max: number,
  { chunk, signal }: Pace,
): Promise<{ payloads: number; issues: number }> {
  const { rows: grown } = await sql<{ app_key: string; fingerprint: string; event_count: number }>`
    select i.app_key, i.fingerprint, i.event_count from issues_live i
    left join issue_payload_trims t on t.app_key = i.app_key and t.fingerprint = i.fingerprint
    where i.event_count > ${max} and (t.event_count is null or i.event_count > t.event_count or t.max_events > ${max})`.execute(
    db,
  );
  let payloads = 0;
  let issues = 0;
  for (const issue of grown) {
    const { rows } = await sql<{ timestamp: number; event_id: string }>`
      select timestamp, event_id from events where app_key = ${issue.app_key} and fingerprint = ${issue.fingerprint}
      order by timestamp desc, event_id desc offset ${max} limit 1`.execute(db);
    const newestDropped = rows[0];
    if (newestDropped) {
      issues += 1;
      // Oldest first, `chunk` at a time, up to and including the newest payload beyond the cap.
      for (;;) {
        signal?.throwIfAborted();
        const { rows: next } = await sql<{ timestamp: number; event_id: string }>`
          select timestamp, event_id from events where app_key = ${issue.app_key} and fingerprint = ${issue.fingerprint}
            and (timestamp, event_id) <= (${newestDropped.timestamp}::int8, ${newestDropped.event_id})
          order by timestamp, event_id offset ${chunk} limit 1`.execute(db);
        const end = next[0];
        const bound = end
          ? sql`(timestamp, event_id) < (${end.timestamp}::int8, ${end.event_id})`
          : sql`(timestamp, event_id) <= (${newestDropped.timestamp}::int8, ${newestDropped.event_id})`;
        payloads += await deleteAndCount(
          db,
          sql`app_key = ${issue.app_key} and fingerprint = ${issue.fingerprint} and ${bound}`,
        );
        if (!end) break;
      }
    }
    await sql`
      insert into issue_payload_trims as t (app_key, fingerprint, event_count, max_events) values (${issue.app_key}, ${issue.fingerprint}, ${issue.event_count}, ${max})
      on conflict (app_key, fingerprint) do update set event_count = excluded.event_count, max_events = excluded.max_events`.execute(
      db,
    );
  }
  return { payloads, issues };
}

async function forgetEventIds(db: Kysely<Database>, beforeDay: number, { chunk, signal }: Pace): Promise<number> {
  let forgotten = 0;
  for (;;) {
    signal?.throwIfAborted();
    const result =
      await sql`delete from event_ids where ctid = any(array(select ctid from event_ids where day < ${beforeDay} limit ${chunk}))`.execute(
        db,
      );
    const n = Number(result.numAffectedRows ?? 0);
    forgotten += n;
    if (n < chunk) return forgotten;
  }
}

/**
 * activity_hours rows of hours before `fromHour`: the write path never reads them again, and only windowed overviews
 * starting that far back do, whose distinct counts then become a lower bound (docs/operations.md).
 */
async function trimActivityHours(db: Kysely<Database>, fromHour: number, { chunk, signal }: Pace): Promise<number> {
  const { rows: apps } = await sql<{ app_key: string }>`select app_key from apps order by app_key`.execute(db);
  let trimmed = 0;
  for (const { app_key: appKey } of apps) {
    for (const kind of ['user', 'issue'] satisfies ActivityKind[]) {
      for (;;) {
        signal?.throwIfAborted();
        const result = await sql`
          delete from activity_hours where ctid = any(array(
            select ctid from activity_hours where app_key = ${appKey} and kind = ${kind} and hour < ${fromHour} limit ${chunk}))`.execute(
          db,
        );
        const n = Number(result.numAffectedRows ?? 0);
        trimmed += n;
        if (n < chunk) break;
      }
    }
  }
  return trimmed;
}

/** The counter ledger's rows for those days (a second of events at most: counters.ts folds it twice a second). */
async function trimUnfoldedIssueDays(db: Kysely<Database>, fromDay: number): Promise<number> {
  const { numDeletedRows } = await db.deleteFrom('issue_days_deltas').where('day', '<', fromDay).executeTakeFirst();
  return Number(numDeletedRows);
}

/**
 * issue_days rows of days before `fromDay`: no series shows them and no event can still add to them. Its folded rows
 * have no index on day (the fold would pay for one on every new issue-day), so the chunks walk their primary key once,
 * each starting after the last row the one before deleted: a run reads the table once, however many rows go.
 */
async function trimIssueDays(db: Kysely<Database>, fromDay: number, { chunk, signal }: Pace): Promise<number> {
  let trimmed = 0;
  let after: { app_key: string; fingerprint: string; day: number } | undefined;
  for (;;) {
    signal?.throwIfAborted();
    const start = after
      ? sql`and (app_key, fingerprint, day) > (${after.app_key}, ${after.fingerprint}, ${after.day}::int4)`
      : sql``;
    const { rows } = await sql<{
      doomed: number;
      deleted: number;
      app_key: string | null;
      fingerprint: string | null;
      day: number | null;
    }>`
      with doomed as materialized (
        select app_key, fingerprint, day from issue_days_folded where day < ${fromDay} ${start}
        order by app_key, fingerprint, day limit ${chunk}
      ),
      deleted as (
        delete from issue_days_folded t using doomed d where t.app_key = d.app_key and t.fingerprint = d.fingerprint and t.day = d.day
        returning 1
      )
      select (select count(*) from doomed)::int8 as doomed, (select count(*) from deleted)::int8 as deleted, l.app_key, l.fingerprint, l.day
      from (select 1) one left join (select * from doomed order by app_key desc, fingerprint desc, day desc limit 1) l on true`.execute(
      db,
    );
    const row = rows[0];
    trimmed += Number(row?.deleted ?? 0);
    if (!row || Number(row.doomed) < chunk || row.app_key === null || row.fingerprint === null || row.day === null)
      return trimmed + (await trimUnfoldedIssueDays(db, fromDay));
    after = { app_key: row.app_key, fingerprint: row.fingerprint, day: Number(row.day) };
  }
}
