// `pnpm bench`: ingestion throughput of the collector against a bare baseline server, on the same machine, in one run.
//
//   pnpm bench                 PostgreSQL on 127.0.0.1:5432 (fresh databases, dropped at the end)
//   pnpm bench --embedded      the embedded default (the collector's own PostgreSQL server in a temp DATA_DIR) against
//                              the collector on PostgreSQL at 127.0.0.1:5432: same load, rounds alternating (issue 15's
//                              >= 0.8x); memory of all its processes: `pnpm --filter @collector/bench footprint`
//   pnpm bench --pglite        PGlite (EMBEDDED=pglite): collector on PGlite in a temp folder vs a bare PGlite server
//   pnpm bench --queries       dashboard queries at 1M events (queries.ts): p50/p95 over 200 calls each, through the API;
//                              --profile profiles the collector while it answers them; --busy-hour N first sends N
//                              events of the current hour, their users common to every app (a busy organization's now)
//   pnpm bench --disk          disk (disk.ts): bytes per event, 60 simulated days with RETENTION_DAYS=7, p99 during a
//                              retention run; --events 1000000 --days 60 --events-per-day 100000 --retention-days 7
//                              --delete-events 1000000 --rate 2000 (events/s of the load in part 3) --seconds 10 --parts 1,2,3
//   pnpm bench --sentry        the Sentry endpoints (envelope, gzipped store) against the batch endpoint, per event (sentry.ts);
//                              PostgreSQL, or the embedded backend with --embedded; --endpoints envelope (or any of
//                              batch,envelope,store,mapped) runs only those; mapped: envelopes whose events a stored
//                              source map maps (source-maps.ts, PostgreSQL only); --profile profiles the collector;
//                              --alloc-profile samples where it allocates memory (alloc-sampler.cjs); issue 24's
//                              target is measured with --connections 256
//   pnpm bench --workers 1,2,4,8  the collector with WORKERS=N against the bare baseline with N processes, per N
//                              (workers.ts): events/s, p99, RSS, lock waits; --connections (64 here by default), --pg-log
//   pnpm bench --all           postgres, embedded, pglite and queries, one after the other
//   options: --seconds 10 --rounds 2 --warmup 3 --connections 32 --pool 10 --skip-paced --paced-share 0.8
//            --profile (both servers under --cpu-prof, summarised at the end) --node-args "..." (both servers)
//            --collector-node-args "..." (the collector only, e.g. a heap cap) --pg-url URL
//            --alerts (10 webhook rules on the collector's app, a local receiver: delivery and latency, see alerts.ts)
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmbeddedPostgres } from '@collector/db';
import {
  type Child,
  cleanupOnExit,
  createAccountWithApps,
  createEventSource,
  type EventSource,
  fmt,
  freePort,
  machineBusyMs,
  parseFlags,
  postgresCpuMs,
  processCpuMs,
  startChild,
  startCollector,
  watchMemory,
} from '@collector/tool-kit';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { type AlertBench, startAlertBench } from './alerts';
import { runDiskBench } from './disk';
import { closedLoopRound, emptyTally, pacedRound, type Tally, type Target } from './load';
import { mainThreadProfile, summarizeAllocations, summarizeProfile } from './profile';
import { runQueryBench } from './queries';
import { createSentryApp, emptySentryTally, type SentryKind, sentryEventSource, sentryRound } from './sentry';
import { insertBenchBundle, symbolicationStates, withBundleFrames } from './source-maps';
import { runWorkersBench } from './workers';

const { flags, number } = parseFlags(
  `pnpm bench [--embedded | --pglite | --queries | --sentry [--embedded] | --disk | --workers 1,2,4,8 [--pg-log FILE] | --all] [--events 1000000] [--days 60 --events-per-day 100000 --retention-days 7 --delete-events 1000000 --rate 2000 --parts 1,2,3] [--calls 200] [--seconds 10] [--rounds 2] [--warmup 3] [--connections 32] [--pool 10]
           [--reuse-db NAME --seed-file FILE] [--busy-hour 100000] [--skip-paced] [--paced-share 0.8] [--profile] [--alloc-profile] [--node-args "--max-old-space-size=200"] [--collector-node-args "--max-old-space-size=256"] [--alerts] [--endpoints batch,envelope,store,mapped] [--pg-url postgres://postgres@127.0.0.1:5432/postgres]`,
  {
    embedded: { type: 'boolean', default: false },
    pglite: { type: 'boolean', default: false },
    all: { type: 'boolean', default: false },
    queries: { type: 'boolean', default: false },
    sentry: { type: 'boolean', default: false },
    disk: { type: 'boolean', default: false },
    days: { type: 'string', default: '60' },
    'events-per-day': { type: 'string', default: '100000' },
    'retention-days': { type: 'string', default: '7' },
    'delete-events': { type: 'string', default: '1000000' },
    rate: { type: 'string', default: '2000' },
    parts: { type: 'string', default: '1,2,3' },
    events: { type: 'string', default: '1000000' },
    calls: { type: 'string', default: '200' },
    'reuse-db': { type: 'string' },
    'seed-file': { type: 'string' },
    'busy-hour': { type: 'string', default: '0' },
    seconds: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '2' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    pool: { type: 'string', default: '10' },
    'skip-paced': { type: 'boolean', default: false },
    'paced-share': { type: 'string', default: '0.8' },
    profile: { type: 'boolean', default: false },
    'alloc-profile': { type: 'boolean', default: false },
    'node-args': { type: 'string', default: '' },
    'collector-node-args': { type: 'string', default: '' },
    'pg-url': { type: 'string', default: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    alerts: { type: 'boolean', default: false },
    endpoints: { type: 'string', default: 'batch,envelope,store,mapped' },
    workers: { type: 'string' },
    'pg-log': { type: 'string' },
  },
);

const options = {
  seconds: number('seconds', 1, 600),
  rounds: number('rounds', 1, 20),
  warmup: number('warmup', 0, 60),
  connections: number('connections', 1, 1000),
  pool: number('pool', 1, 200),
  pacedShare: number('paced-share', 0.05, 1),
  events: number('events', 1000, 100_000_000),
  calls: number('calls', 1, 100_000),
  days: number('days', 1, 3650),
  eventsPerDay: number('events-per-day', 50, 100_000_000),
  retentionDays: number('retention-days', 1, 3650),
  deleteEvents: number('delete-events', 50, 100_000_000),
  rate: number('rate', 50, 1_000_000),
};
const adminUrl = new URL(flags['pg-url'] as string);
if (!['127.0.0.1', 'localhost', '[::1]'].includes(adminUrl.hostname)) {
  console.error('--pg-url: the bench only talks to a local PostgreSQL (127.0.0.1)');
  process.exit(2);
}

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const { cleanups, cleanup, exitAfter } = cleanupOnExit('stopping servers and dropping the bench databases');

// ---------------------------------------------------------------- backends

type Mode = 'postgres' | 'embedded' | 'pglite';
type Which = 'collector' | 'baseline';

interface Store {
  describe: string;
  /** How the two servers are called in the report: in the embedded mode both are collectors. */
  names: Record<Which, string>;
  /** The bare server (tools/bench/src/baseline.ts), or the collector itself on another backend. */
  baselineIsCollector: boolean;
  collectorEnv: Record<string, string>;
  baselineEnv: Record<string, string>;
  /** Read once the servers are stopped. */
  count(which: Which): Promise<Counts>;
  /** Samples what the server's database sessions are doing (PostgreSQL only) until the returned function is called. */
  watchSessions?(which: Which): () => Promise<string>;
  /** CPU time (ms) of the server's own backends (its database's sessions), apart from other work on the server. */
  backendCpuMs?(which: Which): Promise<Map<number, number>>;
}

interface Counts {
  events: number;
  issues: number;
  issueEvents: number;
  /** app_totals.events of the app (the collector maintains it; the baseline does not). */
  totals: number | null;
}

const COUNT_SQL = {
  events: 'select count(*)::int8::text as n from events',
  issues: 'select count(*)::int8::text as n, coalesce(sum(event_count), 0)::int8::text as e from issues_live',
  totals: 'select coalesce(sum(events), 0)::int8::text as n, count(*)::int as apps from app_totals',
};

async function countWith(
  query: (text: string) => Promise<Record<string, unknown>[]>,
  withTotals: boolean,
): Promise<Counts> {
  const [events] = await query(COUNT_SQL.events);
  const [issues] = await query(COUNT_SQL.issues);
  const [totals] = await query(COUNT_SQL.totals);
  return {
    events: Number(events?.n),
    issues: Number(issues?.n),
    issueEvents: Number(issues?.e),
    totals: withTotals ? Number(totals?.n) : null,
  };
}

/** Fresh databases on the machine's PostgreSQL for the given servers (dropped at the end), and what to do with them. */
async function postgresDatabases(which: Which[]) {
  const admin = new pg.Client({ connectionString: adminUrl.href });
  await admin.connect();
  const version = (await admin.query<{ server_version: string }>('show server_version')).rows[0]?.server_version;
  const stamp = `${Date.now().toString(36)}_${process.pid}`;
  const names: Partial<Record<Which, string>> = Object.fromEntries(
    which.map((role) => [role, `bench_${role}_${stamp}`]),
  );
  const urlOf = (db: string) => {
    const url = new URL(adminUrl.href);
    url.pathname = `/${db}`;
    return url.href;
  };
  for (const db of Object.values(names)) {
    await admin.query(`create database "${db}"`);
    cleanups.push(async () => {
      await admin.query(`drop database if exists "${db}" with (force)`);
    });
  }
  cleanups.unshift(() => admin.end());
  const database = (role: Which) => names[role] as string;
  return {
    describe: `PostgreSQL ${version} at ${adminUrl.host}; fresh database(s) ${Object.values(names).join(', ')} (dropped at the end)`,
    url: (role: Which) => urlOf(database(role)),
    backendCpuMs: async (role: Which) => {
      const { rows } = await admin.query<{ pid: number }>(
        `select pid from pg_stat_activity where datname = $1 and backend_type = 'client backend' and pid <> pg_backend_pid()`,
        [database(role)],
      );
      return new Map(rows.map(({ pid }) => [pid, processCpuMs(pid)]));
    },
    watchSessions: (role: Which) => {
      // pg_stat_activity every 50 ms: how many of the server's connections are running, waiting (on what), or idle
      // inside a transaction (waiting for the Node process to send the next statement).
      const states = new Map<string, number>();
      let samples = 0;
      let busy: Promise<void> | undefined;
      const timer = setInterval(() => {
        if (busy) return;
        busy = admin
          .query<{ state: string; wait: string | null }>(
            // For a lock wait, which statement waits (its first words): that names the contended table.
            `select state, wait_event_type || ':' || wait_event
                    || case when wait_event_type = 'Lock' then ' [' || left(regexp_replace(query, '\\s+', ' ', 'g'), 28) || ']' else '' end as wait
               from pg_stat_activity
              where datname = $1 and backend_type = 'client backend' and pid <> pg_backend_pid()`,
            [database(role)],
          )
          .then(({ rows }) => {
            samples++;
            for (const row of rows) {
              const key = row.state === 'active' ? (row.wait ?? 'running') : row.state;
              states.set(key, (states.get(key) ?? 0) + 1);
            }
          })
          .catch(() => {})
          .finally(() => {
            busy = undefined;
          });
      }, 50);
      return async () => {
        clearInterval(timer);
        await busy;
        return [...states]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 7)
          .map(([key, n]) => `${key} ${(n / Math.max(samples, 1)).toFixed(1)}`)
          .join(', ');
      };
    },
    count: (role: Which, withTotals: boolean) => countAt(urlOf(database(role)), withTotals),
  };
}

async function countAt(url: string, withTotals: boolean): Promise<Counts> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await countWith(async (text) => (await client.query(text)).rows, withTotals);
  } finally {
    await client.end();
  }
}

/** The collector against the bare baseline, both on the machine's PostgreSQL. */
async function postgresStore(): Promise<Store> {
  const databases = await postgresDatabases(['collector', 'baseline']);
  return {
    describe: databases.describe,
    names: { collector: 'collector', baseline: 'baseline' },
    baselineIsCollector: false,
    collectorEnv: { DATABASE_URL: databases.url('collector'), DATABASE_POOL_SIZE: String(options.pool) },
    baselineEnv: { DATABASE_URL: databases.url('baseline'), POOL_SIZE: String(options.pool) },
    watchSessions: databases.watchSessions,
    backendCpuMs: databases.backendCpuMs,
    count: (which) => databases.count(which, which === 'collector'),
  };
}

/**
 * The embedded default (`pnpm start` with no DATABASE_URL: the collector's own PostgreSQL server in DATA_DIR) against
 * the same collector on the machine's PostgreSQL, as `baseline`: what choosing the default costs in throughput.
 */
async function embeddedStore(): Promise<Store> {
  const databases = await postgresDatabases(['baseline']);
  const root = mkdtempSync(join(tmpdir(), 'collector-bench-'));
  // The embedded server runs as the postgres account when the bench runs as root: it must be able to reach the folder.
  chmodSync(root, 0o755);
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const dataDir = join(root, 'data');
  return {
    describe: `embedded default in ${dataDir} (removed at the end) against ${databases.describe}`,
    names: { collector: 'embedded', baseline: 'postgres' },
    baselineIsCollector: true,
    collectorEnv: { DATA_DIR: dataDir, DATABASE_POOL_SIZE: String(options.pool) },
    baselineEnv: { DATABASE_URL: databases.url('baseline'), DATABASE_POOL_SIZE: String(options.pool) },
    watchSessions: (which) => (which === 'baseline' ? databases.watchSessions(which) : async () => ''),
    count: async (which) => {
      if (which === 'baseline') return databases.count(which, true);
      // The collector stopped its server: started again on the same folder to count.
      const server = await startEmbeddedPostgres({ dataDir });
      try {
        return await countAt(server.url, true);
      } finally {
        await server.stop();
      }
    },
  };
}

/** The collector on PGlite (EMBEDDED=pglite, the embedded default before issue 15) against a bare PGlite server. */
async function pgliteStore(): Promise<Store> {
  const root = mkdtempSync(join(tmpdir(), 'collector-bench-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const dirs = { collector: join(root, 'collector'), baseline: join(root, 'baseline') };
  return {
    describe: `PGlite in ${root} (removed at the end)`,
    names: { collector: 'collector', baseline: 'baseline' },
    baselineIsCollector: false,
    collectorEnv: { DATA_DIR: dirs.collector, EMBEDDED: 'pglite' },
    baselineEnv: { DATA_DIR: dirs.baseline },
    count: async (which) => {
      const db = await PGlite.create(dirs[which]);
      try {
        return await countWith(
          async (text) => (await db.query<Record<string, unknown>>(text)).rows,
          which === 'collector',
        );
      } finally {
        await db.close();
      }
    },
  };
}

const stores: Record<Mode, () => Promise<Store>> = {
  postgres: postgresStore,
  embedded: embeddedStore,
  pglite: pgliteStore,
};

// ---------------------------------------------------------------- servers

async function startServers(store: Store, profileDir: string | undefined, alerts: AlertBench | undefined) {
  const baselinePort = await freePort();
  const extraArgs = (flags['node-args'] as string).split(/\s+/).filter(Boolean);
  const profileArgs = (name: string) => [
    ...extraArgs,
    ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, name)}`] : []),
  ];
  const collectorArgs = (flags['collector-node-args'] as string).split(/\s+/).filter(Boolean);
  const bareAppKey = 'app_baseline_bench';
  const [collector, baseline] = await Promise.all([
    startCollector({
      repoRoot,
      nodeArgs: [...profileArgs('collector'), ...collectorArgs],
      // The alert receiver is this process, on loopback.
      env: { ...store.collectorEnv, ...(alerts ? { ALERTS_ALLOW_PRIVATE_NETWORKS: 'true' } : {}) },
    }),
    store.baselineIsCollector
      ? startCollector({ repoRoot, nodeArgs: [...profileArgs('baseline'), ...collectorArgs], env: store.baselineEnv })
      : startChild({
          name: 'baseline',
          script: join(repoRoot, 'tools/bench/src/baseline.ts'),
          cwd: repoRoot,
          port: baselinePort,
          nodeArgs: profileArgs('baseline'),
          env: { ...store.baselineEnv, PORT: String(baselinePort), HOST: '127.0.0.1', APP_KEY: bareAppKey },
        }),
  ]);
  cleanups.push(
    () => collector.stop(),
    () => baseline.stop(),
  );

  // An account and an app through the collector's own API: the app's key is what the SDK traffic carries.
  const [appKey] = alerts
    ? [await alerts.createApp(collector.origin)]
    : await createAccountWithApps(collector.origin, ['Bench shop']);
  const [baselineAppKey] = store.baselineIsCollector
    ? await createAccountWithApps(baseline.origin, ['Bench shop'])
    : [bareAppKey];

  return {
    collector,
    baseline,
    targets: {
      collector: { name: store.names.collector, origin: collector.origin, appKey: appKey as string } satisfies Target,
      baseline: {
        name: store.names.baseline,
        origin: baseline.origin,
        appKey: baselineAppKey as string,
      } satisfies Target,
    },
  };
}

// ---------------------------------------------------------------- one mode

interface Row {
  label: string;
  target: string;
  seconds: number;
  eventsPerSecond: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
  accepted: number;
  cpu: { server: number; postgres: number; loadgen: number; busy: number; other: number };
  sessions: string;
}

const pad = (text: string, width: number) => text.padStart(width);
const MB = (mib: number) => (mib * 1024 * 1024) / 1e6;

async function runMode(backend: Mode) {
  const started = Date.now();
  const store = await stores[backend]();
  const { names } = store;
  // Profiles are kept (open them in Chrome DevTools or speedscope); their folder is printed with the summary.
  const profileDir = flags.profile ? mkdtempSync(join(tmpdir(), 'collector-bench-prof-')) : undefined;
  const source: EventSource = createEventSource();
  const alerts = flags.alerts ? await startAlertBench() : undefined;
  if (alerts) cleanups.push(() => alerts.close());
  const { collector, baseline, targets } = await startServers(store, profileDir, alerts);
  const probes = alerts?.startProbes(collector.origin, targets.collector.appKey);
  const children: Record<string, Child> = { collector, baseline };
  const memory = { collector: watchMemory(collector.pid), baseline: watchMemory(baseline.pid) };
  const tallies: Record<string, Tally> = { collector: emptyTally(), baseline: emptyTally() };
  const rows: Row[] = [];
  const ncpu = cpus().length;

  const measure = async (
    label: string,
    which: 'collector' | 'baseline',
    run: () => ReturnType<typeof closedLoopRound>,
  ) => {
    const pid = children[which]?.pid as number;
    const before = {
      server: processCpuMs(pid),
      // Every PostgreSQL server on the machine (in the embedded mode: the embedded one and the machine's).
      postgres: backend === 'pglite' ? Number.NaN : postgresCpuMs(),
      loadgen: process.cpuUsage(),
      machine: machineBusyMs(),
      wall: performance.now(),
    };
    const sessions = store.watchSessions?.(which);
    const result = await run();
    const sessionSummary = (await sessions?.()) ?? '';
    const loadgenUs = process.cpuUsage(before.loadgen);
    const serverMs = processCpuMs(pid) - before.server;
    const postgresMs = backend === 'pglite' ? Number.NaN : postgresCpuMs() - before.postgres;
    const loadgenMs = (loadgenUs.user + loadgenUs.system) / 1000;
    const oursMs = serverMs + (Number.isFinite(postgresMs) ? postgresMs : 0) + loadgenMs;
    const machineMs = machineBusyMs() - before.machine;
    // Shares of the machine over the same window as the CPU readings (a little longer than the round itself).
    const capacityMs = (performance.now() - before.wall) * ncpu;
    const perEvent = (ms: number) => (ms * 1000) / result.accepted;
    const row: Row = {
      label,
      target: which,
      ...result,
      cpu: {
        server: perEvent(serverMs),
        postgres: perEvent(postgresMs),
        loadgen: perEvent(loadgenMs),
        busy: (100 * oursMs) / capacityMs,
        // Everything else on the machine: another test run, a build... Figures taken while it is high are noisy.
        other: Math.max(0, (100 * (machineMs - oursMs)) / capacityMs),
      },
      sessions: sessionSummary,
    };
    rows.push(row);
    process.stderr.write(`  ${label} ${names[which]}: ${fmt(row.eventsPerSecond)} events/s, p99 ${fmt(row.p99)} ms\n`);
    return row;
  };
  const closed = (which: 'collector' | 'baseline', seconds: number) => () =>
    closedLoopRound(targets[which], source, tallies[which] as Tally, { connections: options.connections, seconds });

  process.stderr.write(`${backend}: servers up in ${((Date.now() - started) / 1000).toFixed(1)} s; running\n`);
  if (options.warmup > 0) {
    await measure('warm-up', 'baseline', closed('baseline', options.warmup));
    await measure('warm-up', 'collector', closed('collector', options.warmup));
  }
  for (let round = 1; round <= options.rounds; round++) {
    await measure(`round ${round}`, 'baseline', closed('baseline', options.seconds));
    await measure(`round ${round}`, 'collector', closed('collector', options.seconds));
  }
  const measured = (which: string) => rows.filter((row) => row.target === which && row.label.startsWith('round'));
  const summary = (which: string) => {
    const list = measured(which);
    const seconds = list.reduce((sum, row) => sum + row.seconds, 0);
    return {
      eventsPerSecond: list.reduce((sum, row) => sum + row.accepted, 0) / seconds,
      p50: list.reduce((sum, row) => sum + row.p50, 0) / list.length,
      p99: Math.max(...list.map((row) => row.p99)),
    };
  };
  const peak = summary('collector');
  let paced: Row | undefined;
  let pacedRate = 0;
  if (!flags['skip-paced'] && peak.eventsPerSecond > 0) {
    pacedRate = (options.pacedShare * peak.eventsPerSecond) / source.batchSize;
    paced = await measure(`paced ${Math.round(options.pacedShare * 100)}%`, 'collector', () =>
      pacedRound(targets.collector, source, tallies.collector as Tally, {
        connections: options.connections,
        seconds: options.seconds,
        requestsPerSecond: pacedRate,
      }),
    );
  }

  // Probe events are stored too: counted as accepted, for the integrity check below.
  const probeEvents = (await probes?.stop()) ?? 0;
  (tallies.collector as Tally).accepted += probeEvents;
  // Every new issue's alerts, before the collector stops (what is still in its outbox would be sent at its next start).
  const alertReport = await alerts?.report();
  const mem = { collector: memory.collector.stop(), baseline: memory.baseline.stop() };
  await collector.stop();
  await baseline.stop();
  const counts = { collector: await store.count('collector'), baseline: await store.count('baseline') };

  // ------------------------------------------------------------ report
  const out: string[] = [];
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  out.push('');
  out.push(
    `== ingestion, ${{ postgres: 'PostgreSQL backend', embedded: 'the embedded default against PostgreSQL', pglite: 'PGlite backend' }[backend]} ==`,
  );
  out.push(
    `machine: ${ncpu} x ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, node ${process.version}; ${store.describe}`,
  );
  out.push(
    `load: autocannon ${options.connections} connections, ${source.batchSize}-event batches of ~${source.averageEventBytes} B events ` +
      `(~${Math.round((source.batchSize * source.averageEventBytes) / 1024)} KiB/request), unique eventIds, ~200 fingerprints, 3,000 users; ` +
      `rounds alternate ${names.baseline}/${names.collector}, ${options.rounds} x ${options.seconds} s each after ${options.warmup} s warm-up; db pool ${backend === 'pglite' ? 1 : options.pool}`,
  );
  out.push(
    store.baselineIsCollector
      ? 'servers: the collector as `pnpm start` runs it (services/collector/dist/main.mjs, plain node), twice: on the embedded default and with DATABASE_URL'
      : 'servers: the collector as `pnpm start` runs it (services/collector/dist/main.mjs, plain node); the baseline through tsx',
  );
  if (flags['node-args']) out.push(`NOTE: both servers run with node ${flags['node-args']}`);
  if (flags['collector-node-args']) out.push(`NOTE: the collector runs with node ${flags['collector-node-args']}`);
  if (flags.profile)
    out.push('NOTE: --profile is on: both servers run under --cpu-prof, figures are lower than without it');
  out.push('');
  out.push(
    `${'round'.padEnd(11)}${'server'.padEnd(10)}${pad('events/s', 9)}${pad('p50 ms', 8)}${pad('p99 ms', 8)}${pad('max ms', 8)}${pad('non-2xx', 8)}${pad('errors', 7)}` +
      `   cpu µs/event: ${pad('server', 6)}${pad('postgres', 9)}${pad('loadgen', 8)}   machine: ${pad('ours', 4)}${pad('other', 6)}`,
  );
  for (const row of rows) {
    out.push(
      `${row.label.padEnd(11)}${names[row.target as Which].padEnd(10)}${pad(fmt(row.eventsPerSecond), 9)}${pad(fmt(row.p50, 1), 8)}${pad(fmt(row.p99, 1), 8)}${pad(fmt(row.max), 8)}` +
        `${pad(String(row.non2xx), 8)}${pad(String(row.errors), 7)}                 ${pad(fmt(row.cpu.server), 6)}${pad(fmt(row.cpu.postgres), 9)}${pad(fmt(row.cpu.loadgen), 8)}            ${pad(`${fmt(row.cpu.busy)}%`, 4)}${pad(`${fmt(row.cpu.other)}%`, 6)}`,
    );
  }
  const noisy = rows.filter((row) => row.cpu.other > 10);
  if (noisy.length > 0) {
    out.push(
      `WARNING: other processes used more than 10% of the machine in ${noisy.length} round(s) (column "other"): those figures are noisy; run again on a quiet machine`,
    );
  }
  if (rows.some((row) => row.sessions)) {
    out.push('');
    out.push(
      `database sessions during each round (average number of the server's ${options.pool} connections in each state; "running" = on CPU or not waiting):`,
    );
    for (const row of rows)
      out.push(`${row.label.padEnd(11)}${names[row.target as Which].padEnd(10)}${row.sessions || '-'}`);
  }
  out.push('');
  const base = summary('baseline');
  const ratio = peak.eventsPerSecond / base.eventsPerSecond;
  out.push(
    `${names.baseline.padEnd(10)} ${fmt(base.eventsPerSecond)} events/s   p50 ${fmt(base.p50, 1)} ms (mean of rounds)   p99 ${fmt(base.p99, 1)} ms (worst round)`,
  );
  out.push(
    `${names.collector.padEnd(10)} ${fmt(peak.eventsPerSecond)} events/s   p50 ${fmt(peak.p50, 1)} ms (mean of rounds)   p99 ${fmt(peak.p99, 1)} ms (worst round)`,
  );
  out.push(`ratio ${names.collector}/${names.baseline}: ${ratio.toFixed(2)}x`);
  if (paced) {
    out.push(
      `${names.collector} at ${Math.round(options.pacedShare * 100)}% of its peak (open loop, ${fmt(pacedRate, 1)} req/s = ${fmt(pacedRate * source.batchSize)} events/s offered): ` +
        `${fmt(paced.eventsPerSecond)} events/s, p50 ${fmt(paced.p50, 1)} ms, p99 ${fmt(paced.p99, 1)} ms, non-2xx ${paced.non2xx}, errors ${paced.errors}`,
    );
  }
  out.push(
    `peak RSS: ${names.collector} ${fmt(MB(mem.collector.peak))} MB (VmHWM; highest sampled VmRSS ${fmt(MB(mem.collector.maxRss))} MB), ` +
      `${names.baseline} ${fmt(MB(mem.baseline.peak))} MB (the Node process; the embedded server's processes: footprint)`,
  );
  if (collector.lines() > 0)
    out.push(
      `${names.collector} printed ${collector.lines()} log line(s) at LOG_LEVEL=warn; last: ${collector.output().slice(-3).join(' | ')}`,
    );
  if (baseline.lines() > 0)
    out.push(`${names.baseline} printed ${baseline.lines()} line(s); last: ${baseline.output().slice(-3).join(' | ')}`);

  out.push('');
  out.push('integrity (every response parsed; stored rows counted after the servers stopped):');
  let lossFree = true;
  for (const which of ['baseline', 'collector'] as const) {
    const tally = tallies[which] as Tally;
    const count = counts[which];
    const consistent =
      count.events === tally.accepted &&
      count.issueEvents === count.events &&
      (count.totals === null || count.totals === count.events);
    lossFree &&= consistent && tally.shortBatches === 0 && tally.non2xx === 0;
    out.push(
      `  ${names[which].padEnd(10)} requests ${tally.requests} (${Object.entries(tally.statuses)
        .map(([status, n]) => `${status}: ${n}`)
        .join(', ')}), ` +
        `sum of accepted ${tally.accepted}, duplicates ${tally.duplicates}, rejected ${tally.rejected}, batches with accepted != ${source.batchSize}: ${tally.shortBatches}`,
    );
    out.push(
      `  ${''.padEnd(10)} stored events ${count.events}, sum(issues.event_count) ${count.issueEvents}, issues ${count.issues}` +
        `${count.totals === null ? '' : `, app_totals.events ${count.totals}`}  ->  ${consistent ? 'OK, nothing lost' : 'MISMATCH'}`,
    );
    for (const sample of tally.samples) out.push(`  ${''.padEnd(10)} sample answer: ${sample}`);
  }

  out.push('');
  out.push('targets:');
  const target = (ok: boolean, text: string) => out.push(`  [${ok ? 'met' : 'NOT met'}] ${text}`);
  target(
    ratio >= 0.8,
    `${{ postgres: 'collector >= 0.8x the bare baseline', embedded: 'embedded default >= 0.8x the collector on PostgreSQL', pglite: 'collector >= 0.8x the bare PGlite baseline' }[backend]}: ${ratio.toFixed(2)}x`,
  );
  if (paced)
    target(
      paced.p99 <= 250 && paced.non2xx === 0 && paced.errors === 0,
      `p99 <= 250 ms at ${Math.round(options.pacedShare * 100)}% of peak: ${fmt(paced.p99, 1)} ms`,
    );
  target(lossFree, 'zero events lost, zero non-2xx answers');
  if (alertReport) {
    out.push('');
    out.push(...alertReport.lines);
    out.push(`  (the collector's sum of accepted above includes the ${probeEvents} probe events)`);
    target(alertReport.ok, 'every new issue alerted once per rule');
  }
  if (backend === 'postgres')
    target(MB(mem.collector.peak) <= 300, `collector RSS <= 300 MB: ${fmt(MB(mem.collector.peak))} MB`);
  out.push(`(${backend} run took ${((Date.now() - started) / 1000).toFixed(0)} s)`);

  if (profileDir) {
    for (const name of ['collector', 'baseline']) {
      const main = mainThreadProfile(join(profileDir, name));
      if (main) {
        out.push('');
        out.push(`${name} ${summarizeProfile(main, 15, counts[name as 'collector' | 'baseline'].events)}`);
      }
    }
  }
  console.log(out.join('\n'));
  await cleanup();
  return lossFree;
}

// ---------------------------------------------------------------- Sentry endpoints

/** One collector; rounds alternate batch, envelope and store, the same events underneath; compared per event. */
async function runSentryMode(backend: 'postgres' | 'embedded') {
  const started = Date.now();
  const store = backend === 'postgres' ? await postgresStore() : await embeddedStore();
  const profileDir = flags.profile ? mkdtempSync(join(tmpdir(), 'collector-bench-prof-')) : undefined;
  // Where the collector's allocations go (alloc-sampler.cjs): written when it exits, read after it stopped.
  const allocFile = flags['alloc-profile']
    ? join(mkdtempSync(join(tmpdir(), 'collector-bench-alloc-')), 'collector.heapprofile')
    : undefined;
  const collector = await startCollector({
    repoRoot,
    nodeArgs: [
      ...(flags['node-args'] as string).split(/\s+/).filter(Boolean),
      ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
      ...(allocFile ? ['--require', fileURLToPath(new URL('./alloc-sampler.cjs', import.meta.url))] : []),
      ...(flags['collector-node-args'] as string).split(/\s+/).filter(Boolean),
    ],
    env: { ...store.collectorEnv, ...(allocFile ? { ALLOC_PROFILE_FILE: allocFile } : {}) },
  });
  cleanups.push(() => collector.stop());
  const app = await createSentryApp(collector.origin);
  const source = createEventSource();
  const nextEvent = sentryEventSource(source);
  const batchTarget: Target = { name: 'collector', origin: collector.origin, appKey: app.appKey };
  const batchTally = emptyTally();
  const sentryTally = emptySentryTally();
  const rows: Array<{
    label: string;
    kind: string;
    eventsPerSecond: number;
    p50: number;
    p99: number;
    non2xx: number;
    errors: number;
    accepted: number;
    seconds: number;
    serverUs: number;
    postgresUs: number;
    backendsUs: number;
    loadgenUs: number;
    otherShare: number;
  }> = [];
  // `mapped`: envelopes whose events a stored source map maps at ingestion (source-maps.ts); PostgreSQL only, as the
  // bench inserts the bundle into the collector's database.
  const databaseUrl = store.collectorEnv.DATABASE_URL;
  const mappedEvent =
    databaseUrl !== undefined && String(flags.endpoints).split(',').includes('mapped')
      ? withBundleFrames(nextEvent, await insertBenchBundle(databaseUrl, app.appKey))
      : undefined;
  const round = async (label: string, kind: 'batch' | SentryKind | 'mapped', seconds: number) => {
    // On a small machine the collector, PostgreSQL and the load generator share the CPUs: each one's share per event
    // says which of them a change moved, and `other` how much of the machine something else took meanwhile.
    const before = {
      server: processCpuMs(collector.pid),
      postgres: postgresCpuMs(),
      backends: await store.backendCpuMs?.('collector'),
      loadgen: process.cpuUsage(),
      machine: machineBusyMs(),
      wall: performance.now(),
    };
    const result =
      kind === 'batch'
        ? await closedLoopRound(batchTarget, source, batchTally, { connections: options.connections, seconds })
        : kind === 'mapped'
          ? await sentryRound('envelope', app, mappedEvent ?? nextEvent, sentryTally, {
              connections: options.connections,
              seconds,
            })
          : await sentryRound(kind, app, nextEvent, sentryTally, { connections: options.connections, seconds });
    const serverMs = processCpuMs(collector.pid) - before.server;
    const postgresMs = postgresCpuMs() - before.postgres;
    // The collector's own sessions: a backend that ended meanwhile is missed, one that started counts from its start.
    const backendsAfter = await store.backendCpuMs?.('collector');
    const backendsMs =
      backendsAfter && before.backends
        ? [...backendsAfter].reduce((sum, [pid, ms]) => sum + ms - (before.backends?.get(pid) ?? 0), 0)
        : Number.NaN;
    const loadgen = process.cpuUsage(before.loadgen);
    const loadgenMs = (loadgen.user + loadgen.system) / 1000;
    const otherMs = machineBusyMs() - before.machine - serverMs - postgresMs - loadgenMs;
    const perEvent = (ms: number) => (ms * 1000) / result.accepted;
    rows.push({
      label,
      kind,
      ...result,
      serverUs: perEvent(serverMs),
      postgresUs: perEvent(postgresMs),
      backendsUs: perEvent(backendsMs),
      loadgenUs: perEvent(loadgenMs),
      otherShare: Math.max(0, otherMs) / ((performance.now() - before.wall) * cpus().length),
    });
    process.stderr.write(`  ${label} ${kind}: ${fmt(result.eventsPerSecond)} events/s, p99 ${fmt(result.p99)} ms\n`);
  };
  process.stderr.write(
    `sentry (${backend}): collector up in ${((Date.now() - started) / 1000).toFixed(1)} s; running\n`,
  );
  // --endpoints envelope alone gives a profile of the envelope's path with nothing else in it.
  const kinds = (['batch', 'envelope', 'store', 'mapped'] as const).filter(
    (kind) => String(flags.endpoints).split(',').includes(kind) && (kind !== 'mapped' || mappedEvent !== undefined),
  );
  if (kinds.length === 0) throw new Error('--endpoints: name one or more of batch, envelope, store, mapped');
  if (options.warmup > 0) for (const kind of kinds) await round('warm-up', kind, options.warmup);
  for (let n = 1; n <= options.rounds; n++) for (const kind of kinds) await round(`round ${n}`, kind, options.seconds);
  await collector.stop();
  const stored = await store.count('collector');

  const out: string[] = [''];
  out.push(
    `== Sentry endpoints against the batch endpoint, ${backend === 'postgres' ? 'PostgreSQL backend' : 'the embedded default'} ==`,
  );
  out.push(
    `machine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}; ${store.describe}`,
  );
  out.push(
    `load: ${options.connections} connections; batch: ${source.batchSize} events a request; envelope: one @sentry/browser-shaped event a request; ` +
      `store: one event a request, gzipped, X-Sentry-Auth; ${options.rounds} x ${options.seconds} s rounds alternating after ${options.warmup} s warm-up each`,
  );
  if (profileDir)
    out.push('NOTE: --profile is on: the collector runs under --cpu-prof, figures are lower than without it');
  if (allocFile)
    out.push('NOTE: --alloc-profile is on: the collector samples its allocations, figures are lower than without it');
  out.push('');
  out.push(
    `${'round'.padEnd(11)}${'endpoint'.padEnd(10)}${pad('events/s', 9)}${pad('p50 ms', 8)}${pad('p99 ms', 8)}${pad('non-2xx', 8)}${pad('errors', 7)}${pad('server µs/event', 17)}${pad('postgres', 10)}${pad('its db', 8)}${pad('loadgen', 9)}${pad('other', 7)}`,
  );
  for (const row of rows) {
    out.push(
      `${row.label.padEnd(11)}${row.kind.padEnd(10)}${pad(fmt(row.eventsPerSecond), 9)}${pad(fmt(row.p50, 1), 8)}${pad(fmt(row.p99, 1), 8)}${pad(String(row.non2xx), 8)}${pad(String(row.errors), 7)}${pad(fmt(row.serverUs), 17)}${pad(fmt(row.postgresUs), 10)}${pad(fmt(row.backendsUs), 8)}${pad(fmt(row.loadgenUs), 9)}${pad(`${fmt(100 * row.otherShare)}%`, 7)}`,
    );
  }
  out.push(
    "(postgres: every PostgreSQL process's CPU µs per event; its db: the collector's own sessions'; loadgen: the load generator's; other: share of the machine used by everything else)",
  );
  const rate = (kind: string) => {
    const list = rows.filter((row) => row.kind === kind && row.label.startsWith('round'));
    return list.reduce((sum, row) => sum + row.accepted, 0) / list.reduce((sum, row) => sum + row.seconds, 0);
  };
  const batchRate = rate('batch');
  const worst = (kind: string, key: 'p99' | 'serverUs') =>
    Math.max(...rows.filter((row) => row.kind === kind && row.label.startsWith('round')).map((row) => row[key]));
  out.push('');
  out.push('targets:');
  let ok = true;
  if (kinds.includes('batch')) {
    for (const kind of ['envelope', 'store'] as const) {
      if (!kinds.includes(kind)) continue;
      const ratio = rate(kind) / batchRate;
      ok &&= ratio >= 0.8;
      out.push(
        `  [${ratio >= 0.8 ? 'met' : 'NOT met'}] ${kind} >= 0.8x the batch endpoint per event: ${fmt(rate(kind))} vs ${fmt(batchRate)} events/s = ${ratio.toFixed(2)}x`,
      );
    }
    // Issue 24's target, meant for many connections (--connections 256, as thousands of browsers would send).
    if (kinds.includes('envelope')) {
      const ratio = rate('envelope') / batchRate;
      const p99 = worst('envelope', 'p99');
      const met = ratio >= 0.5 && p99 <= 1000;
      out.push(
        `  [${met ? 'met' : 'NOT met'}] envelope >= 0.5x the batch endpoint with p99 <= 1 s (${options.connections} connections): ${ratio.toFixed(2)}x, p99 ${fmt(p99)} ms`,
      );
    }
  }
  if (kinds.includes('envelope') && kinds.includes('mapped')) {
    // Issue 22's target: events with a known map at >= 0.7x of events without one, in the same run.
    const ratio = rate('mapped') / rate('envelope');
    const cpu = (kind: string) => {
      const list = rows.filter((row) => row.kind === kind && row.label.startsWith('round'));
      return list.reduce((sum, row) => sum + row.serverUs, 0) / list.length;
    };
    ok &&= ratio >= 0.7;
    out.push(
      `  [${ratio >= 0.7 ? 'met' : 'NOT met'}] envelope with source maps >= 0.7x without: ${fmt(rate('mapped'))} vs ${fmt(rate('envelope'))} events/s = ${ratio.toFixed(2)}x; server CPU ${fmt(cpu('mapped'))} vs ${fmt(cpu('envelope'))} µs/event (the mapping worker's included)`,
    );
  }
  if (kinds.includes('envelope')) {
    const us = worst('envelope', 'serverUs');
    out.push(
      `  [${us <= 200 ? 'met' : 'NOT met'}] Node CPU per envelope event <= 200 µs: ${fmt(us)} µs in the worst round`,
    );
  }
  const expected = batchTally.accepted + sentryTally.accepted;
  const lossFree =
    stored.events === expected &&
    stored.issueEvents === stored.events &&
    batchTally.non2xx === 0 &&
    sentryTally.non2xx === 0;
  out.push(
    `  [${lossFree ? 'met' : 'NOT met'}] zero events lost, zero non-2xx: stored ${stored.events}, answered as stored ${expected} (batch ${batchTally.accepted}, Sentry ${sentryTally.accepted}), non-2xx ${batchTally.non2xx + sentryTally.non2xx}`,
  );
  for (const sample of [...batchTally.samples, ...sentryTally.samples]) out.push(`  sample answer: ${sample}`);
  if (databaseUrl !== undefined && kinds.includes('mapped'))
    out.push(`  stored events by symbolication state: ${await symbolicationStates(databaseUrl)}`);
  if (profileDir) {
    const main = mainThreadProfile(profileDir);
    if (main) {
      out.push('');
      out.push(`collector (${kinds.join(', ')}) ${summarizeProfile(main, 15, stored.events)}`);
    }
  }
  if (allocFile && existsSync(allocFile)) {
    out.push('');
    out.push(`collector (${kinds.join(', ')}) ${summarizeAllocations(allocFile, 15, stored.events)}`);
  }
  out.push(`(sentry ${backend} run took ${((Date.now() - started) / 1000).toFixed(0)} s)`);
  console.log(out.join('\n'));
  await cleanup();
  return ok && lossFree;
}

// ---------------------------------------------------------------- main

const modes: (Mode | 'queries' | 'sentry' | 'disk' | 'workers')[] = flags.all
  ? ['postgres', 'embedded', 'pglite', 'queries']
  : flags.workers !== undefined
    ? ['workers']
    : flags.sentry
      ? ['sentry']
      : flags.disk
        ? ['disk']
        : flags.queries
          ? ['queries']
          : flags.embedded
            ? ['embedded']
            : flags.pglite
              ? ['pglite']
              : ['postgres'];
await exitAfter(async () => {
  let ok = true;
  for (const mode of modes) {
    if (mode === 'sentry') {
      ok = (await runSentryMode(flags.embedded ? 'embedded' : 'postgres')) && ok;
    } else if (mode === 'disk') {
      const parts = new Set(String(flags.parts).split(',').map(Number));
      const lines = await runDiskBench({ repoRoot, adminUrl, ...options, parts, cleanups });
      console.log(lines.join('\n'));
      await cleanup();
    } else if (mode === 'workers') {
      const workers = String(flags.workers)
        .split(',')
        .map((n) => Number(n));
      if (workers.some((n) => !Number.isInteger(n) || n < 1 || n > 64)) {
        console.error('--workers: a list of process counts from 1 to 64, e.g. 1,2,4,8');
        return false;
      }
      const connectionsGiven = process.argv.some((arg) => arg.startsWith('--connections'));
      await runWorkersBench({
        repoRoot,
        adminUrl,
        workers,
        seconds: options.seconds,
        warmup: options.warmup,
        // The issue's measurements (issue 24): 64 keep-alive connections.
        connections: connectionsGiven ? options.connections : 64,
        pool: options.pool,
        pgLog: flags['pg-log'] as string | undefined,
        cleanups,
      });
      await cleanup();
      ok = process.exitCode !== 1 && ok;
    } else if (mode === 'queries') {
      const reuse = flags['reuse-db'] ? { database: flags['reuse-db'], seedFile: flags['seed-file'] ?? '' } : undefined;
      const result = await runQueryBench({
        repoRoot,
        adminUrl,
        events: options.events,
        calls: options.calls,
        pool: options.pool,
        cleanups,
        reuse,
        profile: flags.profile,
        busyHour: number('busy-hour', 0, 10_000_000),
      });
      console.log(result.lines.join('\n'));
      await cleanup();
      ok = result.ok && ok;
    } else {
      ok = (await runMode(mode)) && ok;
    }
  }
  return ok;
});
