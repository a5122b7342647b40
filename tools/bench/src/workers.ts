// `pnpm bench --workers 1,2,4,8`: ingestion as the number of processes grows. For each N, on fresh databases of the
// machine's PostgreSQL: the collector with WORKERS=N (the production bundle) and then the bare baseline with N
// processes (baseline.ts under node:cluster), the same closed-loop load of 50-event batches of one app each. Per point:
// events/s, p99, the RSS of all the collector's processes, the share of PostgreSQL's active backends that wait on a
// lock (pg_stat_activity sampled every 50 ms), and the waits for a row lock longer than 10 ms, per 1,000 batches: the
// database runs with log_lock_waits = on and deadlock_timeout = 10ms, and every "still waiting" line the server logs
// for it is counted (--pg-log names the server's log file; Debian's is found by itself). And the CPU each event cost
// the server's processes, PostgreSQL (every postgres process of the machine: run it on a quiet one) and the load
// generator: on few cores more processes can only keep up if they cost no more per event. Nothing lost: every
// accepted event is stored, and the app's counters equal its events.
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Child,
  createAccountWithApps,
  createEventSource,
  fmt,
  freePort,
  memoryMiB,
  postgresCpuMs,
  processCpuMs,
  processTree,
  startChild,
  startCollector,
} from '@collector/tool-kit';
import pg from 'pg';
import { closedLoopRound, emptyTally } from './load';

export interface WorkersBenchOptions {
  repoRoot: string;
  adminUrl: URL;
  workers: number[];
  seconds: number;
  warmup: number;
  connections: number;
  pool: number;
  pgLog: string | undefined;
  cleanups: Array<() => Promise<void> | void>;
}

interface Point {
  which: 'collector' | 'baseline';
  workers: number;
  eventsPerSecond: number;
  p99: number;
  non2xx: number;
  rssMiB: number;
  lockShare: number;
  waitsPer1000: number | undefined;
  otherWaitsPer1000: number | undefined;
  /** The row waits by the table they were on, most first: "issues 45, app_users 3". */
  waitsOn: string;
  batches: number;
  /** CPU µs per stored event: the server's processes, PostgreSQL's, and this process's (the load). */
  cpuPerEvent: { server: number; postgres: number; load: number };
  lost: string;
}

/** RSS (MiB) of a process and of every process below it. */
const treeRssMiB = (pid: number): number => processTree(pid).reduce((sum, each) => sum + (memoryMiB(each).rss || 0), 0);

/** CPU time (ms) of a process and of every process below it. */
const treeCpuMs = (pid: number): number => processTree(pid).reduce((sum, each) => sum + (processCpuMs(each) || 0), 0);

/** The server's log file: --pg-log, or Debian's for the server's major version. */
export function findPgLog(given: string | undefined, version: string): string | undefined {
  if (given) return given;
  const major = version.split('.')[0];
  const debian = `/var/log/postgresql/postgresql-${major}-main.log`;
  return existsSync(debian) ? debian : undefined;
}

/**
 * What a file gained since `from` (a byte offset), read from there: a server's log can pass what one read may take
 * (2 GiB), e.g. with log_min_duration_statement = 0, long before a point's own lines do.
 */
function readFrom(file: string, from: number): Buffer {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(Math.max(0, statSync(file).size - from));
    let read = 0;
    while (read < buffer.length) {
      const got = readSync(fd, buffer, read, buffer.length - read, from + read);
      if (got === 0) break;
      read += got;
    }
    return buffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

/**
 * The waits for a row lock longer than deadlock_timeout that the log gained since `from` (a byte offset), for
 * `database`: log_lock_waits' "still waiting for" lines on a transaction (a row another transaction wrote) or a tuple.
 * Waits on other locks (a relation's extension, an advisory lock) are counted apart. `relations`: the row waits by the
 * table their entry's CONTEXT line names ("while inserting index tuple ... in relation "issues""), to tell a new
 * issue's insert from a user's hour list, say.
 */
function lockWaitsSince(
  log: string,
  from: number,
  database: string,
): { rows: number; other: number; relations: Map<string, number> } {
  const lines = readFrom(log, from).toString('utf8').split('\n');
  let rows = 0;
  let other = 0;
  const relations = new Map<string, number>();
  for (const [index, line] of lines.entries()) {
    if (!line.includes('still waiting for') || !line.includes(`@${database} `)) continue;
    if (!/ on (transaction|tuple) /.test(line)) {
      other++;
      continue;
    }
    rows++;
    // The entry's DETAIL and CONTEXT lines follow it, each with the same prefix.
    const context = lines.slice(index + 1, index + 5).find((next) => next.includes('CONTEXT:'));
    const relation = context?.match(/in relation "([^"]+)"/)?.[1] ?? '?';
    relations.set(relation, (relations.get(relation) ?? 0) + 1);
  }
  return { rows, other, relations };
}

export async function runWorkersBench(options: WorkersBenchOptions): Promise<void> {
  const admin = new pg.Client({ connectionString: options.adminUrl.href });
  await admin.connect();
  options.cleanups.unshift(() => admin.end());
  const version = (await admin.query<{ server_version: string }>('show server_version')).rows[0]?.server_version ?? '?';
  const log = findPgLog(options.pgLog, version);
  const stamp = `${Date.now().toString(36)}_${process.pid}`;
  const urlOf = (db: string) => {
    const url = new URL(options.adminUrl.href);
    url.pathname = `/${db}`;
    return url.href;
  };
  console.log(
    `pnpm bench --workers ${options.workers.join(',')}: PostgreSQL ${version} at ${options.adminUrl.host}, ` +
      `${options.connections} connections of 50-event batches, ${options.warmup} s warm-up and ${options.seconds} s per point; ` +
      `lock waits > 10 ms from ${log ?? '(no server log found: --pg-log PATH)'}`,
  );

  async function freshDatabase(name: string): Promise<string> {
    await admin.query(`create database "${name}"`);
    options.cleanups.push(async () => {
      await admin.query(`drop database if exists "${name}" with (force)`);
    });
    // Every wait for a lock longer than 10 ms is logged ("still waiting for ..."), for this database only.
    await admin.query(`alter database "${name}" set log_lock_waits = on`);
    await admin.query(`alter database "${name}" set deadlock_timeout = '10ms'`);
    return urlOf(name);
  }

  /** Share of the database's active backends waiting on a heavyweight lock, sampled until the returned call. */
  function watchLocks(database: string) {
    let active = 0;
    let waiting = 0;
    let busy: Promise<void> | undefined;
    const timer = setInterval(() => {
      if (busy) return;
      busy = admin
        .query<{ active: number; waiting: number }>(
          `select count(*)::int as active, count(*) filter (where wait_event_type = 'Lock')::int as waiting
             from pg_stat_activity where datname = $1 and state = 'active' and backend_type = 'client backend'`,
          [database],
        )
        .then(({ rows }) => {
          active += rows[0]?.active ?? 0;
          waiting += rows[0]?.waiting ?? 0;
        })
        .catch(() => {})
        .finally(() => {
          busy = undefined;
        });
    }, 50);
    return async () => {
      clearInterval(timer);
      await busy;
      return active === 0 ? 0 : waiting / active;
    };
  }

  async function measure(which: Point['which'], workers: number): Promise<Point> {
    const database = `bench_${which}_w${workers}_${stamp}`;
    const url = await freshDatabase(database);
    let child: Child;
    let appKey: string;
    if (which === 'collector') {
      child = await startCollector({
        repoRoot: options.repoRoot,
        env: { DATABASE_URL: url, DATABASE_POOL_SIZE: String(options.pool), WORKERS: String(workers) },
      });
      [appKey] = (await createAccountWithApps(child.origin, ['Bench shop'])) as [string];
    } else {
      const port = await freePort();
      appKey = 'app_baseline_bench';
      child = await startChild({
        name: 'baseline',
        script: join(options.repoRoot, 'tools/bench/src/baseline.ts'),
        cwd: options.repoRoot,
        port,
        env: {
          DATABASE_URL: url,
          POOL_SIZE: String(options.pool),
          WORKERS: String(workers),
          PORT: String(port),
          HOST: '127.0.0.1',
          APP_KEY: appKey,
        },
      });
    }
    try {
      const target = { name: which, origin: child.origin, appKey };
      const source = createEventSource();
      const tally = emptyTally();
      if (options.warmup > 0)
        await closedLoopRound(target, source, tally, { connections: options.connections, seconds: options.warmup });
      const logFrom = log ? statSync(log).size : 0;
      const locks = watchLocks(database);
      const rss: number[] = [];
      const rssTimer = setInterval(() => rss.push(treeRssMiB(child.pid)), 500);
      // Where the CPU went, per event: on two cores more processes can only help if they cost no more per event.
      const cpuBefore = { server: treeCpuMs(child.pid), postgres: postgresCpuMs(), load: process.cpuUsage() };
      const round = await closedLoopRound(target, source, tally, {
        connections: options.connections,
        seconds: options.seconds,
      });
      clearInterval(rssTimer);
      const events = Math.max(round.accepted, 1);
      const load = process.cpuUsage(cpuBefore.load);
      const cpuPerEvent = {
        server: ((treeCpuMs(child.pid) - cpuBefore.server) * 1000) / events,
        postgres: ((postgresCpuMs() - cpuBefore.postgres) * 1000) / events,
        load: (load.user + load.system) / events,
      };
      const lockShare = await locks();
      // The server writes its log line when the wait passes 10 ms: give the last ones time to land.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const waits = log ? lockWaitsSince(log, logFrom, database) : undefined;
      const lost = await checkNothingLost(url, which, tally.accepted);
      return {
        which,
        workers,
        eventsPerSecond: round.eventsPerSecond,
        p99: round.p99,
        non2xx: round.non2xx,
        rssMiB: Math.max(...rss, 0),
        lockShare,
        waitsPer1000: waits === undefined ? undefined : (waits.rows / Math.max(round.requests, 1)) * 1000,
        otherWaitsPer1000: waits === undefined ? undefined : (waits.other / Math.max(round.requests, 1)) * 1000,
        waitsOn: waits
          ? [...waits.relations]
              .sort((a, b) => b[1] - a[1])
              .map(([relation, count]) => `${relation} ${count}`)
              .join(', ')
          : '',
        batches: round.requests,
        cpuPerEvent,
        lost,
      };
    } finally {
      await child.stop();
    }
  }

  const points: Point[] = [];
  for (const workers of options.workers) {
    for (const which of ['collector', 'baseline'] as const) {
      const point = await measure(which, workers);
      points.push(point);
      console.log(
        `  ${which} WORKERS=${workers}: ${fmt(point.eventsPerSecond)} events/s, p99 ${fmt(point.p99)} ms, ` +
          `waiting on locks ${fmt(point.lockShare * 100)}% of active backends, ` +
          `row-lock waits > 10 ms ${point.waitsPer1000 === undefined ? 'n/a' : fmt(point.waitsPer1000, 1)} per 1,000 batches ` +
          `(${point.waitsOn ? `on ${point.waitsOn}; ` : ''}other lock waits ${point.otherWaitsPer1000 === undefined ? 'n/a' : fmt(point.otherWaitsPer1000, 1)}), ` +
          `CPU µs per event: server ${fmt(point.cpuPerEvent.server)}, PostgreSQL ${fmt(point.cpuPerEvent.postgres)}, ` +
          `load ${fmt(point.cpuPerEvent.load)}; ${point.lost}`,
      );
    }
  }
  const first = points.find((point) => point.which === 'collector');
  console.log('');
  console.log(
    '| WORKERS | collector events/s | vs WORKERS=1 | p99 ms | RSS MiB (all processes) | active backends waiting on locks | row-lock waits > 10 ms per 1,000 batches | collector CPU µs per event: server / PostgreSQL | baseline events/s | baseline p99 ms | collector / baseline |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const workers of options.workers) {
    const c = points.find((point) => point.which === 'collector' && point.workers === workers) as Point;
    const b = points.find((point) => point.which === 'baseline' && point.workers === workers) as Point;
    console.log(
      `| ${workers} | ${fmt(c.eventsPerSecond)} | ${fmt(c.eventsPerSecond / (first?.eventsPerSecond ?? Number.NaN), 2)}x | ${fmt(c.p99)} | ${fmt(c.rssMiB)} | ` +
        `${fmt(c.lockShare * 100)}% | ${c.waitsPer1000 === undefined ? 'n/a' : fmt(c.waitsPer1000, 1)} | ` +
        `${fmt(c.cpuPerEvent.server)} / ${fmt(c.cpuPerEvent.postgres)} | ${fmt(b.eventsPerSecond)} | ${fmt(b.p99)} | ` +
        `${fmt(c.eventsPerSecond / b.eventsPerSecond, 2)}x |`,
    );
  }
  const failures = points.filter((point) => point.non2xx > 0 || !point.lost.startsWith('nothing lost'));
  for (const point of failures)
    console.log(`  ${point.which} WORKERS=${point.workers}: ${point.non2xx} non-2xx answers; ${point.lost}`);
  if (failures.length > 0) process.exitCode = 1;
}

/** Every accepted event stored; for the collector, its app's counters equal to its events too. */
async function checkNothingLost(url: string, which: Point['which'], accepted: number): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const stored = Number((await client.query('select count(*)::int8 as n from events')).rows[0]?.n);
    if (stored < accepted) return `LOST ${accepted - stored} of ${accepted} accepted events`;
    if (which === 'baseline') return `nothing lost (${stored} stored)`;
    const totals = Number(
      (await client.query('select coalesce(sum(events), 0)::int8 as n from app_totals')).rows[0]?.n,
    );
    const issues = Number(
      (await client.query('select coalesce(sum(event_count), 0)::int8 as n from issues_live')).rows[0]?.n,
    );
    if (totals !== stored || issues !== stored)
      return `COUNTS OFF: ${stored} events stored, app_totals ${totals}, issues ${issues}`;
    return `nothing lost (${stored} stored, counters equal)`;
  } finally {
    await client.end();
  }
}
