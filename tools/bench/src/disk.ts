// The disk bench (`pnpm bench --disk`), on PostgreSQL, three parts:
//   1. bytes per event at the defaults: N events (--events, default 1,000,000) through the API into a fresh database,
//      then `vacuum (analyze)` and the size of each structure (heap, TOAST, indexes), per event and per 1M events;
//   2. a simulated stretch of traffic (--days 60, --events-per-day 100000) with RETENTION_DAYS=7 (--retention-days),
//      written through the write path (EventWriter) with a simulated clock and one retention run per simulated day:
//      the database's size after each day, which must level off instead of growing;
//   3. ingestion p99 while a retention run deletes --delete-events events (default 1,000,000), against p99 without one,
//      same collector process: the old events are loaded, the collector restarted with RETENTION_DAYS=4, older than all
//      of them (its run starts with it), and a paced load measured during the run and for as long after it (at least
//      --seconds).
// Each simulated day ends with a `vacuum`: a simulated day takes seconds, while in service autovacuum (one minute
// naptime) has the whole day to reclaim what the write path's updates and the retention run's deletes leave behind.
import { type DatabaseHandle, EventWriter, migrateDatabase, openDatabase, runRetention, sql } from '@collector/db';
import { judgeEvent, type StoredEvent } from '@collector/domain';
import {
  type Child,
  type Cleanup,
  createAccountWithApps,
  createEventSource,
  loadEvents,
  percentile,
  startCollector,
} from '@collector/tool-kit';
import pg from 'pg';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export interface DiskBenchOptions {
  repoRoot: string;
  adminUrl: URL;
  /** Part 1: events loaded to measure bytes per event. */
  events: number;
  /** Part 2: simulated days, events per day, RETENTION_DAYS. */
  days: number;
  eventsPerDay: number;
  retentionDays: number;
  /** Part 3: old events a retention run deletes while the load is measured; seconds of load after the run. */
  deleteEvents: number;
  seconds: number;
  /** Part 3: the paced load, events per second (in 50-event batches). */
  rate: number;
  /** Skip parts: a comma-separated list of 1, 2, 3 (default all). */
  parts: Set<number>;
  cleanups: Cleanup[];
}

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

async function freshDatabase(admin: pg.Client, options: DiskBenchOptions, label: string): Promise<string> {
  const name = `bench_disk_${label}_${Date.now().toString(36)}_${process.pid}`;
  await admin.query(`create database "${name}"`);
  options.cleanups.push(async () => {
    await admin.query(`drop database if exists "${name}" with (force)`);
  });
  const url = new URL(options.adminUrl.href);
  url.pathname = `/${name}`;
  return url.href;
}

async function collectorOn(
  options: DiskBenchOptions,
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<Child> {
  // info: the retention run's report is a log line (part 3 waits for it).
  const child = await startCollector({
    repoRoot: options.repoRoot,
    env: { DATABASE_URL: databaseUrl, LOG_LEVEL: 'info', ...env },
  });
  options.cleanups.push(() => child.stop());
  return child;
}

interface Sizes {
  /** Structure -> bytes: heap, TOAST and indexes of each. */
  rows: Array<{ structure: string; heap: number; toast: number; indexes: number }>;
  database: number;
}

/** Every table's size, the partitions of events summed as one. */
async function sizes(client: pg.Client): Promise<Sizes> {
  const { rows } = await client.query<{ structure: string; heap: string; toast: string; indexes: string }>(`
    select case when p.inhparent = 'events'::regclass then 'events' else c.relname end as structure,
      sum(pg_relation_size(c.oid))::int8::text as heap,
      sum(coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0))::int8::text as toast,
      sum(pg_indexes_size(c.oid))::int8::text as indexes
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    left join pg_inherits p on p.inhrelid = c.oid
    where n.nspname = current_schema() and c.relkind = 'r' and c.relname not like 'kysely_%'
    group by 1 order by 1`);
  const database = (await client.query<{ n: string }>('select pg_database_size(current_database())::text as n')).rows[0]
    ?.n;
  return {
    rows: rows.map((row) => ({
      structure: row.structure,
      heap: Number(row.heap),
      toast: Number(row.toast),
      indexes: Number(row.indexes),
    })),
    database: Number(database),
  };
}

const ROLLUPS = new Set([
  'app_hourly_folded',
  'activity_hours',
  'activity_by_prev_day_folded',
  'activity_by_hour_folded',
  'issue_hours',
  'app_users',
  'issue_users',
  'org_users',
  'org_totals_folded',
  'issues',
  'app_totals_folded',
  'outcomes_folded',
  'issue_payload_trims',
  'issue_contexts_folded',
]);
const groupOf = (structure: string) =>
  structure === 'events' || structure === 'event_ids' ? structure : ROLLUPS.has(structure) ? 'rollups' : 'other';

async function bytesPerEvent(admin: pg.Client, options: DiskBenchOptions): Promise<string[]> {
  const url = await freshDatabase(admin, options, 'size');
  const collector = await collectorOn(options, url);
  const [appKey] = await createAccountWithApps(collector.origin, ['Disk']);
  const source = createEventSource();
  const started = Date.now();
  await loadEvents(collector.origin, appKey as string, source, options.events);
  const seconds = (Date.now() - started) / 1000;
  await collector.stop();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('vacuum (analyze)');
    const stored = Number((await client.query<{ n: string }>('select count(*)::text as n from events')).rows[0]?.n);
    const measured = await sizes(client);
    const per = (bytes: number) => (bytes / stored).toFixed(0);
    const perMillion = (bytes: number) => mib((bytes / stored) * 1_000_000);
    const lines = [
      `Bytes per event at the defaults: ${stored.toLocaleString()} events stored in ${seconds.toFixed(0)} s (~${source.averageEventBytes} bytes of JSON each as sent), after vacuum (analyze)`,
      '',
      '| structure | heap B/event | TOAST B/event | indexes B/event | total B/event | MiB per 1M events |',
      '|---|---|---|---|---|---|',
    ];
    const groups = new Map<string, { heap: number; toast: number; indexes: number }>();
    for (const row of measured.rows) {
      const group = groups.get(groupOf(row.structure)) ?? { heap: 0, toast: 0, indexes: 0 };
      group.heap += row.heap;
      group.toast += row.toast;
      group.indexes += row.indexes;
      groups.set(groupOf(row.structure), group);
    }
    let total = 0;
    for (const name of ['events', 'event_ids', 'rollups', 'other']) {
      const group = groups.get(name);
      if (!group) continue;
      const sum = group.heap + group.toast + group.indexes;
      total += sum;
      lines.push(
        `| ${name} | ${per(group.heap)} | ${per(group.toast)} | ${per(group.indexes)} | ${per(sum)} | ${perMillion(sum)} |`,
      );
    }
    lines.push(`| all tables | | | | ${per(total)} | ${perMillion(total)} |`);
    lines.push(
      '',
      `Rollups in detail (MiB): ${measured.rows
        .filter((row) => ROLLUPS.has(row.structure))
        .map((row) => `${row.structure} ${mib(row.heap + row.toast + row.indexes)}`)
        .join(', ')}`,
    );
    lines.push(`Whole database: ${mib(measured.database)} MiB (catalogs and free space included).`);
    return lines;
  } finally {
    await client.end();
  }
}

/** Part 2: the write path and the retention run with a simulated clock, one day at a time. */
async function simulatedDays(admin: pg.Client, options: DiskBenchOptions): Promise<string[]> {
  const url = await freshDatabase(admin, options, 'days');
  await migrateDatabase({ url });
  // Timeouts off: this process is the only client, and a day's retention run may take longer than a request may.
  const database: DatabaseHandle = await openDatabase({
    url,
    maxConnections: 4,
    timeouts: { statementMs: 0, queryMs: 0 },
  });
  options.cleanups.push(() => database.close());
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  options.cleanups.push(() => client.end());
  const appKey = 'web_disk_bench';
  await sql`insert into users (id, email, password_hash, created_at) values ('user_disk_bench', 'disk@bench.example', 'x', 0)`.execute(
    database.db,
  );
  await sql`insert into apps (app_key, user_id, name, type, created_at, public_key) values (${appKey}, 'user_disk_bench', 'Disk', 'web', 0, ${'d'.repeat(32)})`.execute(
    database.db,
  );
  await sql`insert into app_totals_folded (app_key) values (${appKey})`.execute(database.db);
  const writer = new EventWriter(database.db, { concurrency: 2 });
  const source = createEventSource({ seed: 7 });
  const start = Math.floor((Date.now() - options.days * DAY) / DAY) * DAY;
  const policy = { retentionDays: options.retentionDays, maxEventsPerIssue: 10_000 };
  await runRetention(database.db, policy, start);
  const lines = [
    `Simulated ${options.days} days of ${options.eventsPerDay.toLocaleString()} events a day, RETENTION_DAYS=${options.retentionDays}, one retention run a day:`,
    '',
    '| day | events stored | events MiB | event_ids MiB | rollups MiB | database MiB |',
    '|---|---|---|---|---|---|',
  ];
  const batchesPerHour = Math.max(1, Math.round(options.eventsPerDay / 24 / source.batchSize));
  for (let day = 0; day < options.days; day++) {
    for (let hour = 0; hour < 24; hour++) {
      const hourStart = start + day * DAY + hour * HOUR;
      const writes: Promise<unknown>[] = [];
      for (let i = 0; i < batchesPerHour; i++) {
        const receivedAt = hourStart + Math.floor(((i + 1) / (batchesPerHour + 1)) * HOUR);
        const body = JSON.parse(
          source.batch(appKey, { timestamp: () => receivedAt - Math.floor(Math.random() * 60_000) }),
        ) as { events: unknown[] };
        const events: StoredEvent[] = [];
        for (const raw of body.events) {
          const verdict = judgeEvent(raw, { appKey, receivedAt });
          if (verdict.ok) events.push(verdict.event);
        }
        writes.push(writer.write({ appKey, events, receivedAt }));
      }
      await Promise.all(writes);
    }
    const now = start + (day + 1) * DAY;
    await runRetention(database.db, policy, now);
    await client.query('vacuum');
    const measured = await sizes(client);
    const sumOf = (group: string) =>
      measured.rows
        .filter((row) => groupOf(row.structure) === group)
        .reduce((sum, row) => sum + row.heap + row.toast + row.indexes, 0);
    const stored = Number((await client.query<{ n: string }>('select count(*)::text as n from events')).rows[0]?.n);
    lines.push(
      `| ${day + 1} | ${stored.toLocaleString()} | ${mib(sumOf('events'))} | ${mib(sumOf('event_ids'))} | ${mib(sumOf('rollups'))} | ${mib(measured.database)} |`,
    );
    process.stderr.write(`  ${lines.at(-1)}\n`);
  }
  return lines;
}

/** Part 3: p99 of a paced load while a retention run deletes, and for as long after it, on the same collector. */
async function p99DuringRetention(admin: pg.Client, options: DiskBenchOptions): Promise<string[]> {
  const url = await freshDatabase(admin, options, 'p99');
  let collector = await collectorOn(options, url);
  const [appKey] = await createAccountWithApps(collector.origin, ['Retained']);
  const source = createEventSource({ seed: 11 });
  // Old events from 6 to 4.1 days ago: RETENTION_DAYS=4 deletes them all, dropping the days wholly before the cut-off
  // and deleting the rest of the day it cuts through in chunks.
  const now = Date.now();
  let n = 0;
  const span = 1.9 * DAY;
  await loadEvents(
    collector.origin,
    appKey as string,
    source,
    options.deleteEvents,
    () => now - 6 * DAY + Math.floor(((n++ % options.deleteEvents) / options.deleteEvents) * span),
  );
  await collector.stop();
  const count = async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return Number((await client.query<{ n: string }>('select count(*)::text as n from events')).rows[0]?.n);
    } finally {
      await client.end();
    }
  };
  const storedBefore = await count();
  collector = await collectorOn(options, url, { RETENTION_DAYS: '4' });

  // Paced, latency from each request's due time, so a stall counts in full.
  const rate = Math.max(1, options.rate / source.batchSize);
  const samples: Array<{ due: number; ms: number; status: number }> = [];
  const inFlight: Promise<void>[] = [];
  const started = performance.now();
  let runEnded: number | undefined;
  let report = '';
  for (let i = 0; ; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (runEnded === undefined) {
      const line = collector.output().find((entry) => entry.includes('"msg":"retention run"'));
      if (line) {
        runEnded = performance.now();
        report = line;
      }
      // A failed run is retried only an hour later: say why at once rather than wait for it.
      const failure = collector.output().find((entry) => entry.includes('"msg":"retention run failed'));
      if (failure) throw new Error(`the retention run failed: ${failure}`);
    }
    if (runEnded !== undefined && performance.now() - runEnded > Math.max(options.seconds * 1000, runEnded - started))
      break;
    if (runEnded === undefined && performance.now() - started > 600_000)
      throw new Error('the retention run did not end within 10 minutes');
    inFlight.push(
      fetch(`${collector.origin}/api/events/batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: source.batch(appKey as string),
      }).then(async (response) => {
        await response.arrayBuffer();
        samples.push({ due, ms: performance.now() - due, status: response.status });
      }),
    );
  }
  await Promise.all(inFlight);
  const deleted =
    storedBefore + samples.filter((sample) => sample.status === 200).length * source.batchSize - (await count());
  const ended = runEnded as number;
  const during = samples
    .filter((sample) => sample.due < ended)
    .map((sample) => sample.ms)
    .sort((a, b) => a - b);
  const after = samples
    .filter((sample) => sample.due >= ended)
    .map((sample) => sample.ms)
    .sort((a, b) => a - b);
  const failed = samples.filter((sample) => sample.status !== 200).length;
  const parsed = JSON.parse(report || '{}') as Record<string, number>;
  const row = (label: string, values: number[]) =>
    `| ${label} | ${values.length} | ${percentile(values, 50, true).toFixed(1)} | ${percentile(values, 99, true).toFixed(1)} | ${(values.at(-1) ?? Number.NaN).toFixed(1)} |`;
  return [
    `Ingestion while a retention run deletes ${options.deleteEvents.toLocaleString()} old events (6 to 4.1 days old, RETENTION_DAYS=4), paced at ${options.rate} events/s:`,
    `the run: ${parsed.ms ?? '?'} ms, ${deleted.toLocaleString()} events deleted: ${parsed.partitionsDropped ?? '?'} partitions dropped, ${(parsed.eventsDeleted ?? 0).toLocaleString()} events deleted in chunks; ${failed} requests not 200.`,
    '',
    '| load | requests | p50 ms | p99 ms | max ms |',
    '|---|---|---|---|---|',
    row('during the run', during),
    row('after it (no run)', after),
  ];
}

export async function runDiskBench(options: DiskBenchOptions): Promise<string[]> {
  const admin = new pg.Client({ connectionString: options.adminUrl.href });
  await admin.connect();
  options.cleanups.push(() => admin.end());
  const version = (await admin.query<{ server_version: string }>('show server_version')).rows[0]?.server_version;
  const lines = [`PostgreSQL ${version}`, ''];
  if (options.parts.has(1)) lines.push(...(await bytesPerEvent(admin, options)), '');
  if (options.parts.has(2)) lines.push(...(await simulatedDays(admin, options)), '');
  if (options.parts.has(3)) lines.push(...(await p99DuringRetention(admin, options)), '');
  return lines;
}
