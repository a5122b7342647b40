// The query bench (`pnpm bench --queries`): dashboard queries through the HTTP API against a collector on a fresh
// PostgreSQL database seeded with 1,000,000 events (tools/seed), p50 and p95 over 200 calls of each.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { DAY, HOUR } from '@collector/domain';
import {
  type Child,
  type Cleanup,
  createEventSource,
  fmt,
  loadEvents,
  machineBusyMs,
  percentile,
  postgresCpuMs,
  processCpuMs,
  sendRequest,
  startCollector,
} from '@collector/tool-kit';
import pg from 'pg';
import { mainThreadProfile, summarizeProfile } from './profile';

export interface QueryBenchOptions {
  repoRoot: string;
  adminUrl: URL;
  events: number;
  calls: number;
  pool: number;
  /** Stops and cleanups, run by the caller at the end or on a signal. */
  cleanups: Cleanup[];
  /**
   * For working on the queries: measure a database seeded before (kept, not dropped) with the seed's output file
   * (`pnpm --filter @collector/seed seed --out`), instead of seeding a fresh one. Reported figures come from fresh runs.
   */
  reuse?: { database: string; seedFile: string } | undefined;
  /** The measured collector under --cpu-prof, its profile summarised after the table (latencies are higher with it). */
  profile?: boolean;
  /**
   * --busy-hour N: before measuring, N more events timestamped in the current hour, their users drawn from one set
   * for every app (as an organization's web and mobile apps share signed-in users): what a busy organization's
   * dashboard reads when its window ends now. Added to a reused database each time (their ids are new every run).
   */
  busyHour?: number;
}

/** Users of the busy hour: one event source for every app, so most of them are seen in several apps. */
const BUSY_USERS = 5_000;

/** `count` events of the bench's event source timestamped in the current hour, spread over the apps (the first more). */
async function sendBusyHour(origin: string, apps: readonly { appKey: string }[], count: number): Promise<void> {
  const hourStart = Math.floor(Date.now() / HOUR) * HOUR;
  const source = createEventSource({ users: BUSY_USERS });
  const appKey = () => (apps[Math.floor(Math.random() ** 2 * apps.length)] as { appKey: string }).appKey;
  await loadEvents(
    origin,
    appKey,
    source,
    count,
    () => hourStart + Math.floor(Math.random() * (Date.now() - hourStart)),
    8,
  );
}

interface Seeded {
  token: string;
  apps: { appKey: string; name: string; events: number }[];
  events: number;
  seconds: number;
}

interface Query {
  name: string;
  /** p95 target, ms. */
  target: number;
  path: () => string;
}

interface Measured {
  name: string;
  target: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  bytes: number;
}

/** Tag searches (name, q): a key:value term, a has: term, a negated term and a wildcard. */
const tagSearches = [
  ['tag key:value (tier:pro)', 'tier:pro'],
  ['has:feature (tag)', 'has:feature'],
  ['negated tag (!tier:free)', '!tier:free'],
  ['tag wildcard (page:/checkout*)', 'page:/checkout*'],
] as const;

/**
 * Microseconds during which some runnable task waited for a CPU (Linux PSI, /proc/pressure/cpu "some"), NaN where
 * unavailable. One request at a time keeps two or three processes runnable at most (bench, collector, a PostgreSQL
 * backend): on this 2-CPU VM, idle otherwise, that measured about 10%. Much more means the CPUs were taken from under
 * us: other processes, or the VM's host, which the machine's own CPU counters do not show.
 */
function cpuStallUs(): number {
  try {
    const line = readFileSync('/proc/pressure/cpu', 'utf8').split('\n')[0] ?? '';
    return Number(/total=(\d+)/.exec(line)?.[1] ?? Number.NaN);
  } catch {
    return Number.NaN;
  }
}

/** GET with a keep-alive agent; resolves with the status, the body and the time to the last byte (ms). */
async function get(agent: Agent, origin: string, path: string, token: string) {
  const started = performance.now();
  const { status, body } = await sendRequest(new URL(path, origin), {
    agent,
    headers: { authorization: `Bearer ${token}` },
  });
  return { status, body, ms: performance.now() - started };
}

/** Runs the seed (tools/seed) against a running collector, printing its progress; returns what it wrote. */
async function runSeed(repoRoot: string, origin: string, events: number): Promise<Seeded> {
  const dir = mkdtempSync(join(tmpdir(), 'collector-bench-seed-'));
  const out = join(dir, 'seed.json');
  try {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(repoRoot, 'tools/seed/src/main.ts'),
        '--url',
        origin,
        '--events',
        String(events),
        '--out',
        out,
      ],
      {
        cwd: repoRoot,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let last = 0;
    child.stderr?.on('data', (chunk: Buffer) => {
      // Progress every 30 s is enough for a log.
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        if (Date.now() - last > 30_000 || !line.includes('events in')) {
          process.stderr.write(`  seed: ${line.trim()}\n`);
          last = Date.now();
        }
      }
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`seed exited with ${code}`);
    return JSON.parse(readFileSync(out, 'utf8')) as Seeded;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runQueryBench(options: QueryBenchOptions): Promise<{ lines: string[]; ok: boolean }> {
  const started = Date.now();
  const admin = new pg.Client({ connectionString: options.adminUrl.href });
  await admin.connect();
  const version = (await admin.query<{ server_version: string }>('show server_version')).rows[0]?.server_version;
  const name = options.reuse?.database ?? `bench_queries_${Date.now().toString(36)}_${process.pid}`;
  // Cleanups run last pushed first: the servers and the session on the database go, then the database, then admin.
  options.cleanups.push(() => admin.end());
  if (!options.reuse) {
    await admin.query(`create database "${name}"`);
    options.cleanups.push(async () => {
      await admin.query(`drop database if exists "${name}" with (force)`);
    });
  }
  const url = new URL(options.adminUrl.href);
  url.pathname = `/${name}`;

  const start = async (nodeArgs: string[] = []) => {
    const child = await startCollector({
      repoRoot: options.repoRoot,
      nodeArgs,
      env: { DATABASE_URL: url.href, DATABASE_POOL_SIZE: String(options.pool) },
    });
    options.cleanups.push(() => child.stop());
    return child;
  };

  let collector: Child;
  let seeded: Seeded;
  if (options.reuse) {
    seeded = JSON.parse(readFileSync(options.reuse.seedFile, 'utf8')) as Seeded;
  } else {
    // 1. Seed through the API, as real traffic fills every counter and index.
    process.stderr.write(`queries: seeding ${options.events} events into ${name}\n`);
    collector = await start();
    seeded = await runSeed(options.repoRoot, collector.origin, options.events);
    await collector.stop();
  }
  const busyHour = options.busyHour ?? 0;
  if (busyHour > 0) {
    process.stderr.write(`queries: sending ${busyHour} events of the current hour\n`);
    collector = await start();
    await sendBusyHour(collector.origin, seeded.apps, busyHour);
    await collector.stop();
  }
  // 2. What autovacuum does on its own sooner or later, done now so every run measures the same state: statistics for
  //    the planner, and the visibility map that lets index-only scans skip the table.
  const vacuumStarted = performance.now();
  const db = new pg.Client({ connectionString: url.href });
  await db.connect();
  options.cleanups.push(() => db.end());
  await db.query('vacuum (analyze)');
  const vacuumSeconds = (performance.now() - vacuumStarted) / 1000;
  const sizes = (
    await db.query<{ events: string; size: string }>(
      `select (select count(*) from events)::text as events, pg_size_pretty(pg_database_size(current_database())) as size`,
    )
  ).rows[0];

  // 3. A fresh collector process, as after a restart.
  const profileDir = options.profile ? mkdtempSync(join(tmpdir(), 'collector-queries-prof-')) : undefined;
  collector = await start(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const token = seeded.token;
  const largest = [...seeded.apps].sort((a, b) => b.events - a.events)[0] as Seeded['apps'][number];
  const call = async (path: string) => {
    const reply = await get(agent, collector.origin, path, token);
    if (reply.status !== 200) throw new Error(`GET ${path}: ${reply.status} ${reply.body.slice(0, 300)}`);
    return reply;
  };
  // The cursor of page 20 (50 issues a page), and the issue with the most events of the largest app.
  let cursor = '';
  for (let page = 1; page < 20; page++) {
    const next = JSON.parse(
      (await call(`/api/issues?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).body,
    ).nextCursor as string | null;
    if (!next) throw new Error(`only ${page} pages of issues`);
    cursor = next;
  }
  const issue = (
    await db.query<{ fingerprint: string }>(
      'select fingerprint from issues where app_key = $1 order by event_count desc limit 1',
      [largest.appKey],
    )
  ).rows[0];
  const issueId = `${largest.appKey}:${issue?.fingerprint}`;
  // The seed's user's organization: its slug narrows the list and the overview (issue 21's org filter).
  const orgSlug = (JSON.parse((await call('/api/orgs')).body).orgs as Array<{ slug: string }>)[0]?.slug ?? '';
  let eventsCursor = '';
  for (let page = 1; page < 5; page++) {
    eventsCursor = JSON.parse(
      (
        await call(
          `/api/issues?limit=50&sort=events${eventsCursor ? `&cursor=${encodeURIComponent(eventsCursor)}` : ''}`,
        )
      ).body,
    ).nextCursor as string;
  }
  const release =
    (await db.query<{ value: string }>(`select value from issue_facets where facet = 'release' limit 1`)).rows[0]
      ?.value ?? 'none';
  const lastWeek = (appKey?: string) => {
    const now = Date.now();
    return `/api/overview?${appKey ? `appKey=${appKey}&` : ''}from=${now - 7 * DAY}&to=${now}`;
  };
  const queries: Query[] = [
    { name: 'overview, one app (the largest)', target: 10, path: () => `/api/overview?appKey=${largest.appKey}` },
    { name: 'overview, all apps', target: 35, path: () => '/api/overview' },
    { name: 'overview, one app, last 7 days (from/to)', target: 10, path: () => lastWeek(largest.appKey) },
    { name: 'issues, first page (all apps, 50)', target: 10, path: () => '/api/issues?limit=50' },
    {
      name: 'issues, page 20 (cursor)',
      target: 10,
      path: () => `/api/issues?limit=50&cursor=${encodeURIComponent(cursor)}`,
    },
    {
      name: 'issue detail (largest issue, 50 events)',
      target: 10,
      path: () => `/api/issues/${encodeURIComponent(issueId)}`,
    },
    // Beyond the issue's list, for the record: the dashboard's chart and the all-apps window.
    { name: 'overview, all apps, last 7 days', target: 35, path: () => lastWeek() },
    {
      name: 'timeseries, one app, 30 days by day',
      target: 10,
      path: () => `/api/overview/timeseries?appKey=${largest.appKey}&bucket=day`,
    },
    // Triage: the dashboard's default list (unresolved), each sort, search and filter, and a later page of a sort.
    { name: 'issues, unresolved (all apps, 50)', target: 10, path: () => '/api/issues?limit=50&status=unresolved' },
    { name: 'issues, sort=events', target: 10, path: () => '/api/issues?limit=50&sort=events' },
    { name: 'issues, sort=users', target: 10, path: () => '/api/issues?limit=50&sort=users' },
    { name: 'issues, sort=firstSeen', target: 10, path: () => '/api/issues?limit=50&sort=firstSeen' },
    {
      name: 'issues, sort=events, page 5 (cursor)',
      target: 10,
      path: () => `/api/issues?limit=50&sort=events&cursor=${encodeURIComponent(eventsCursor)}`,
    },
    { name: 'issues, q=undefined (search)', target: 10, path: () => '/api/issues?limit=50&q=undefined' },
    { name: 'issues, q=zzz (search, no match)', target: 10, path: () => '/api/issues?limit=50&q=zzz' },
    {
      name: 'issues, type=request, one app',
      target: 10,
      path: () => `/api/issues?limit=50&type=request&appKey=${largest.appKey}`,
    },
    {
      name: 'issues, release + environment',
      target: 10,
      path: () => `/api/issues?limit=50&release=${encodeURIComponent(release)}&environment=production`,
    },
    {
      name: 'issues, unresolved + q + sort=events',
      target: 10,
      path: () => '/api/issues?limit=50&status=unresolved&q=items&sort=events',
    },
    // Search terms on the seed's tags (tools/kit tagsFor), read from issue_facets' tag:<key> rows.
    ...tagSearches.map(([name, q]) => ({
      name: `issues, ${name}`,
      target: 10,
      path: () => `/api/issues?limit=50&q=${encodeURIComponent(q)}`,
    })),
    {
      name: 'issues, is:unresolved tag:value sort=events',
      target: 10,
      path: () => `/api/issues?limit=50&sort=events&q=${encodeURIComponent('is:unresolved tier:enterprise')}`,
    },
    // The app's releases page (issue 22): each release's events, first and last event and new issues.
    { name: 'releases, one app (the largest)', target: 10, path: () => `/api/apps/${largest.appKey}/releases` },
    // Issue 21's organization filter and the issue page's activity, issue 23's tags of an issue.
    {
      name: 'issues, one organization (org=)',
      target: 10,
      path: () => `/api/issues?limit=50&org=${encodeURIComponent(orgSlug)}`,
    },
    { name: 'overview, one organization (org=)', target: 10, path: () => `/api/overview?org=${orgSlug}` },
    { name: 'issue tags (largest issue)', target: 10, path: () => `/api/issues/${encodeURIComponent(issueId)}/tags` },
    {
      name: 'issue activity (largest issue)',
      target: 10,
      path: () => `/api/issues/${encodeURIComponent(issueId)}/activity`,
    },
  ];

  // 4. The answers first: the windowed totals must equal counting the events themselves.
  const now = Date.now();
  const checks: string[] = [];
  for (const appKey of [largest.appKey, undefined]) {
    const from = now - 7 * DAY;
    const got = JSON.parse(
      (await call(`/api/overview?${appKey ? `appKey=${appKey}&` : ''}from=${from}&to=${now}`)).body,
    ).totals;
    const { rows } = await db.query(
      `select count(*)::int as events, (count(*) filter (where type = 'error'))::int as errors, (count(*) filter (where type = 'request'))::int as "failedRequests",
              count(distinct anonymous_id)::int as "affectedUsers", count(distinct (app_key, fingerprint))::int as issues
         from events where ($1::text is null or app_key = $1) and timestamp >= $2 and timestamp < $3`,
      [appKey ?? null, from, now],
    );
    const same = JSON.stringify(got) === JSON.stringify(rows[0]);
    checks.push(
      `${appKey ? 'largest app' : 'all apps'} last 7 days ${same ? 'equal' : `DIFFER: api ${JSON.stringify(got)} events ${JSON.stringify(rows[0])}`}`,
    );
  }

  // The largest app's releases page must say what its stored events say (none deleted on a fresh seed): per release,
  // the events, the first and last event, and the issues whose first event named it.
  {
    const got = (
      JSON.parse((await call(`/api/apps/${largest.appKey}/releases`)).body).releases as Array<{
        version: string;
        events: number;
        firstEvent: number | null;
        lastEvent: number | null;
        newIssues: number;
      }>
    )
      .filter((release) => release.events > 0)
      .map(({ version, events, firstEvent, lastEvent, newIssues }) => ({
        version,
        events,
        firstEvent,
        lastEvent,
        newIssues,
      }))
      .sort((a, b) => a.version.localeCompare(b.version));
    const { rows } = await db.query(
      `with counted as (
          select payload->>'release' as version, count(*)::int as events, min(timestamp)::float8 as "firstEvent",
            max(timestamp)::float8 as "lastEvent"
          from events where app_key = $1 and payload->>'release' <> '' group by 1),
        firsts as (
          select f.version, count(*)::int as issues from issues i
          cross join lateral (select x.payload->>'release' as version from events x
            where x.app_key = i.app_key and x.fingerprint = i.fingerprint order by x.timestamp, x.event_id limit 1) f
          where i.app_key = $1 group by 1)
        select c.version, c.events, c."firstEvent", c."lastEvent", coalesce(f.issues, 0) as "newIssues"
        from counted c left join firsts f on f.version = c.version`,
      [largest.appKey],
    );
    rows.sort((a, b) => a.version.localeCompare(b.version));
    const same = JSON.stringify(got) === JSON.stringify(rows);
    checks.push(
      `largest app's releases ${same ? 'equal' : `DIFFER: api ${JSON.stringify(got)} events ${JSON.stringify(rows)}`}`,
    );
  }

  // The largest issue's tags must say what its stored events' tags say (the seed keeps them all, under the cap per
  // issue): each value shown with its events, and as many values as the events hold, up to the 10 shown.
  {
    const got = JSON.parse((await call(`/api/issues/${encodeURIComponent(issueId)}/tags`)).body).tags as Array<{
      key: string;
      values: Array<{ value: string; events: number }>;
    }>;
    const { rows } = await db.query<{ key: string; value: string; events: number }>(
      `select t.key, t.value, count(*)::int as events from events e, jsonb_each_text(e.payload->'tags') t
         where e.app_key = $1 and e.fingerprint = $2 group by 1, 2`,
      [largest.appKey, issue?.fingerprint],
    );
    const counted = new Map(rows.map((row) => [`${row.key}\u0000${row.value}`, row.events]));
    const keys = [...new Set(rows.map((row) => row.key))];
    const wrong = keys.flatMap((key) => {
      const shown = got.find((tag) => tag.key === key)?.values ?? [];
      const held = rows.filter((row) => row.key === key).length;
      const bad = shown.filter((value) => counted.get(`${key}\u0000${value.value}`) !== value.events);
      return bad.length > 0 || shown.length !== Math.min(10, held) ? [key] : [];
    });
    checks.push(
      keys.length === 0
        ? "largest issue's tags NOT CHECKED: its events hold no tags"
        : `largest issue's tags (${keys.join(', ')}) ${wrong.length === 0 ? 'equal' : `DIFFER for ${wrong.join(', ')}`}`,
    );
  }

  // A tag search that matches nothing measures an empty probe: say so, as the seed's tags should match.
  const tagMatches: string[] = [];
  for (const [name, q] of tagSearches) {
    const total = JSON.parse((await call(`/api/issues?limit=1&q=${encodeURIComponent(q)}`)).body).total as number;
    tagMatches.push(`${name} matches ${total} issues${total === 0 ? ' (NONE: are tag facets written?)' : ''}`);
  }

  // 5. Measure: a few warm-up calls, then `calls` sequential calls of each query, one connection.
  const ncpu = cpus().length;
  const cpuBefore = {
    collector: processCpuMs(collector.pid),
    postgres: postgresCpuMs(),
    bench: process.cpuUsage(),
    machine: machineBusyMs(),
    stall: cpuStallUs(),
    wall: performance.now(),
  };
  const results: Measured[] = [];
  for (const query of queries) {
    for (let i = 0; i < 20; i++) await call(query.path());
    const times: number[] = [];
    let bytes = 0;
    for (let i = 0; i < options.calls; i++) {
      const reply = await call(query.path());
      times.push(reply.ms);
      bytes = reply.body.length;
    }
    times.sort((a, b) => a - b);
    const row = {
      name: query.name,
      target: query.target,
      p50: percentile(times, 50, true),
      p95: percentile(times, 95, true),
      p99: percentile(times, 99, true),
      max: times.at(-1) ?? Number.NaN,
      bytes,
    };
    results.push(row);
    process.stderr.write(`  ${query.name}: p50 ${fmt(row.p50, 2)} ms, p95 ${fmt(row.p95, 2)} ms\n`);
  }
  const benchCpu = process.cpuUsage(cpuBefore.bench);
  const oursMs =
    processCpuMs(collector.pid) -
    cpuBefore.collector +
    (postgresCpuMs() - cpuBefore.postgres) +
    (benchCpu.user + benchCpu.system) / 1000;
  const capacityMs = (performance.now() - cpuBefore.wall) * ncpu;
  const other = Math.max(0, (100 * (machineBusyMs() - cpuBefore.machine - oursMs)) / capacityMs);
  const stall = (100 * (cpuStallUs() - cpuBefore.stall)) / 1000 / (performance.now() - cpuBefore.wall);
  agent.destroy();
  await collector.stop();

  const lines: string[] = [];
  lines.push('');
  lines.push('== dashboard queries, PostgreSQL backend ==');
  lines.push(
    `machine: ${ncpu} x ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, node ${process.version}`,
  );
  lines.push(
    options.reuse
      ? `PostgreSQL ${version}; database ${name} SEEDED EARLIER (--reuse-db), kept: ${sizes?.events} events, ${sizes?.size}`
      : `PostgreSQL ${version}; fresh database ${name} (dropped at the end): ${sizes?.events} events, ${sizes?.size}`,
  );
  lines.push(
    `seeded through the API (tools/seed: ${seeded.apps.length} apps of uneven size, the largest ${largest.events} events): ` +
      `${seeded.events} events in ${seeded.seconds.toFixed(0)} s (${Math.round(seeded.events / seeded.seconds)} events/s); then vacuum (analyze) in ${vacuumSeconds.toFixed(0)} s`,
  );
  if (busyHour > 0)
    lines.push(
      `then --busy-hour: ${busyHour} events timestamped in the current hour, their users drawn from ${BUSY_USERS} for every app`,
    );
  lines.push(
    `each query: 20 warm-up calls, then ${options.calls} sequential calls over one keep-alive connection, time to the last byte; collector restarted after seeding`,
  );
  lines.push(`answers checked against counting the events: ${checks.join('; ')}`);
  lines.push(`tag searches: ${tagMatches.join('; ')}`);
  lines.push('');
  lines.push(
    `${'query'.padEnd(44)}${'p50 ms'.padStart(8)}${'p95 ms'.padStart(8)}${'p99 ms'.padStart(8)}${'max ms'.padStart(8)}${'bytes'.padStart(8)}   target p95`,
  );
  for (const row of results) {
    lines.push(
      `${row.name.padEnd(44)}${fmt(row.p50, 2).padStart(8)}${fmt(row.p95, 2).padStart(8)}${fmt(row.p99, 2).padStart(8)}${fmt(row.max, 1).padStart(8)}${String(row.bytes).padStart(8)}` +
        `   <= ${row.target} ms  ${row.p95 <= row.target ? 'met' : 'NOT met'}`,
    );
  }
  lines.push(
    `machine during the measurements: ${fmt(other, 0)}% of its ${ncpu} CPUs used by other processes; ` +
      `a runnable task waited for a CPU ${fmt(stall, 0)}% of the time (PSI cpu "some")` +
      (other > 10 || stall > 25
        ? ' (busy, or CPUs taken by the host: figures are noisy; run again on a quiet machine)'
        : ''),
  );
  if (profileDir) {
    lines.push('NOTE: --profile was on: the collector ran under --cpu-prof, figures are higher than without it');
    const main = mainThreadProfile(profileDir);
    if (main) lines.push('', `collector ${summarizeProfile(main, 30)}`);
    rmSync(profileDir, { recursive: true, force: true });
  }
  const ok = results.every((row) => row.p95 <= row.target) && checks.every((check) => !check.includes('DIFFER'));
  lines.push(`(queries run took ${((Date.now() - started) / 1000).toFixed(0)} s)`);
  return { lines, ok };
}
