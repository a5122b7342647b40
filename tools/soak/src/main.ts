// `pnpm soak`: many SDK-like clients against the collector for minutes, one batch in ten sent twice (the same
// eventIds), then every stored count checked against what the answers said. Exits non-zero on any 5xx or any mismatch.
//
//   pnpm soak                  50 clients, 10 minutes, a fresh database on the machine's PostgreSQL (dropped at the end)
//   pnpm soak --ci             the same for 30 s (CI)
//   pnpm soak --embedded       the collector on its embedded PostgreSQL server in a temp folder (the default without DATABASE_URL)
//   pnpm soak --workers 2      two collector processes on one port and one database (WORKERS=2); CI runs `--ci --workers 2`
//   options: --seconds 600 --clients 50 --duplicate-share 0.1 --think-ms 500 --apps 3 --pg-url postgres://postgres@127.0.0.1:5432/postgres
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startEmbeddedPostgres } from '@collector/db';
import {
  type Answer,
  cleanupOnExit,
  createAccountWithApps,
  createEventSource,
  fmt,
  latencyOf,
  memoryMiB,
  parseFlags,
  percentile,
  postBatch,
  rng,
  startCollector,
  watchMemory,
} from '@collector/tool-kit';
import pg from 'pg';

const { flags, number } = parseFlags(
  'pnpm soak [--seconds 600 | --ci] [--clients 50] [--duplicate-share 0.1] [--think-ms 500] [--apps 3] [--embedded] [--workers 1] [--pg-url postgres://postgres@127.0.0.1:5432/postgres]',
  {
    seconds: { type: 'string', default: '600' },
    ci: { type: 'boolean', default: false },
    clients: { type: 'string', default: '50' },
    'duplicate-share': { type: 'string', default: '0.1' },
    'think-ms': { type: 'string', default: '500' },
    apps: { type: 'string', default: '3' },
    embedded: { type: 'boolean', default: false },
    workers: { type: 'string', default: '1' },
    'pg-url': { type: 'string', default: process.env.SOAK_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
);
const options = {
  seconds: flags.ci ? 30 : number('seconds', 1, 24 * 3600),
  clients: number('clients', 1, 1000),
  duplicateShare: number('duplicate-share', 0, 1),
  thinkMs: number('think-ms', 0, 60_000),
  apps: number('apps', 1, 50),
  workers: number('workers', 1, 16),
};
const adminUrl = new URL(flags['pg-url'] as string);
const REQUEST_TIMEOUT_MS = 30_000;

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const { cleanups, exitAfter } = cleanupOnExit('stopping the collector and dropping the soak database');
const t0 = performance.now();
const log = (text: string) => process.stderr.write(`[${fmt((performance.now() - t0) / 1000).padStart(4)} s] ${text}\n`);

// ---------------------------------------------------------------- database

type Query = (text: string) => Promise<Record<string, unknown>[]>;

interface Store {
  describe: string;
  env: Record<string, string>;
  /** Runs `check` on the database once the collector has stopped. */
  inspect<T>(check: (query: Query) => Promise<T>): Promise<T>;
}

async function postgresStore(): Promise<Store> {
  const admin = new pg.Client({ connectionString: adminUrl.href });
  await admin.connect();
  cleanups.push(() => admin.end());
  const version = (await admin.query<{ server_version: string }>('show server_version')).rows[0]?.server_version;
  const name = `soak_${Date.now().toString(36)}_${process.pid}`;
  await admin.query(`create database "${name}"`);
  cleanups.push(async () => {
    await admin.query(`drop database if exists "${name}" with (force)`);
  });
  const url = new URL(adminUrl.href);
  url.pathname = `/${name}`;
  return {
    describe: `PostgreSQL ${version} at ${adminUrl.host}, fresh database ${name} (dropped at the end)`,
    env: { DATABASE_URL: url.href },
    inspect: async (check) => {
      const client = new pg.Client({ connectionString: url.href });
      await client.connect();
      try {
        return await check(async (text) => (await client.query(text)).rows);
      } finally {
        await client.end();
      }
    },
  };
}

async function embeddedStore(): Promise<Store> {
  const dir = mkdtempSync(join(tmpdir(), 'collector-soak-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return {
    describe: `the embedded PostgreSQL server in ${dir} (removed at the end)`,
    env: { DATA_DIR: dir },
    inspect: async (check) => {
      // The collector has stopped its server: start it again on the same folder to read what it stored.
      const server = await startEmbeddedPostgres({ dataDir: dir });
      const client = new pg.Client({ connectionString: server.url });
      try {
        await client.connect();
        return await check(async (text) => (await client.query(text)).rows);
      } finally {
        await client.end();
        await server.stop();
      }
    },
  };
}

// ---------------------------------------------------------------- load

interface Tally {
  answers: Answer[];
  batches: number;
  /** Batches sent twice, and of those the pairs whose two answers did not add up (duplicates != batch size). */
  doubled: { sequential: number; concurrent: number; inconsistent: string[] };
  /** `${appKey} ${eventId}` of every event a 200 answer accepted. */
  acceptedIds: Set<string>;
  eventsSent: number;
}

const newTally = (): Tally => ({
  answers: [],
  batches: 0,
  doubled: { sequential: 0, concurrent: 0, inconsistent: [] },
  acceptedIds: new Set(),
  eventsSent: 0,
});

/** Runs the clients until the deadline, filling `tally` as answers come. */
async function runLoad(origin: string, appKeys: string[], deadline: number, tally: Tally): Promise<void> {
  // A pool of realistic events (the tool kit's generator); each batch takes 1 to 50 of them.
  const source = createEventSource({ batchSize: 50, seed: 11 });
  const client = async (index: number) => {
    const r = rng(1000 + index);
    // Spread the first requests over the first think time instead of a thundering start.
    await sleep(r() * options.thinkMs);
    while (performance.now() < deadline) {
      const appKey = appKeys[Math.floor(r() * appKeys.length)] as string;
      const size = 1 + Math.floor(r() * 50);
      const events = (JSON.parse(source.batch(appKey)) as { events: { eventId: string }[] }).events.slice(0, size);
      const body = JSON.stringify({ appKey, events });
      const batch = tally.batches++;
      tally.eventsSent += size;
      const meta = { batch, attempt: 1, events: size };
      let answers: Answer[];
      if (r() < options.duplicateShare) {
        // Half the doubles are a retry after the answer, half two sends racing each other (two tabs, a beacon and a
        // fetch).
        if (r() < 0.5) {
          tally.doubled.sequential++;
          const first = await postBatch(origin, body, meta, REQUEST_TIMEOUT_MS);
          answers = [first, await postBatch(origin, body, { ...meta, attempt: 2 }, REQUEST_TIMEOUT_MS)];
        } else {
          tally.doubled.concurrent++;
          answers = await Promise.all([
            postBatch(origin, body, meta, REQUEST_TIMEOUT_MS),
            postBatch(origin, body, { ...meta, attempt: 2 }, REQUEST_TIMEOUT_MS),
          ]);
        }
        const [a, b] = answers as [Answer, Answer];
        if (
          a.status === 200 &&
          b.status === 200 &&
          (a.duplicates + b.duplicates !== size || a.accepted !== size || b.accepted !== size)
        ) {
          tally.doubled.inconsistent.push(
            `batch ${batch} of ${size}: accepted ${a.accepted}+${b.accepted}, duplicates ${a.duplicates}+${b.duplicates}`,
          );
        }
      } else {
        answers = [await postBatch(origin, body, meta, REQUEST_TIMEOUT_MS)];
      }
      for (const answer of answers) {
        tally.answers.push(answer);
        if (answer.status === 200 && answer.rejected === 0)
          for (const event of events) tally.acceptedIds.add(`${appKey} ${event.eventId}`);
      }
      await sleep(r() * 2 * options.thinkMs);
    }
  };
  await Promise.all(Array.from({ length: options.clients }, (_, i) => client(i)));
}

// ---------------------------------------------------------------- checks

const INTEGRITY_SQL = {
  stored: 'select count(*)::int8::text as n from events',
  distinct: 'select count(distinct (app_key, event_id))::int8::text as n from events',
  totalsEvents: 'select coalesce(sum(events), 0)::int8::text as n from app_totals',
  issueEvents: 'select coalesce(sum(event_count), 0)::int8::text as n from issues_live',
  hourlyEvents: 'select coalesce(sum(events), 0)::int8::text as n from app_hourly',
  issues: 'select count(*)::int8::text as n from issues',
  // Apps whose running totals differ from what their events say.
  appsOff: `select count(*)::int8::text as n from app_totals t
    left join (select app_key, count(*) as events, count(*) filter (where type = 'error') as errors,
                      count(*) filter (where type = 'request') as failed, count(distinct anonymous_id) as users
                 from events group by app_key) e using (app_key)
    left join (select app_key, count(*) as issues from issues group by app_key) i using (app_key)
    where t.events <> coalesce(e.events, 0) or t.errors <> coalesce(e.errors, 0) or t.failed_requests <> coalesce(e.failed, 0)
       or t.users <> coalesce(e.users, 0) or t.issues <> coalesce(i.issues, 0)`,
  // Issues whose event_count or user_count differ from their events, and events without an issue.
  issueCountsOff: `select count(*)::int8::text as n from issues_live i
    full join (select app_key, fingerprint, count(*) as events from events group by 1, 2) e
      using (app_key, fingerprint)
    where i.event_count is distinct from e.events`,
  issueUsersOff: `select count(*)::int8::text as n from issues_live i
    left join (select app_key, fingerprint, count(distinct anonymous_id) as users from events group by 1, 2) e using (app_key, fingerprint)
    where i.user_count <> coalesce(e.users, 0)`,
  // Hours whose rollup differs from the events of that hour.
  hoursOff: `select count(*)::int8::text as n from app_hourly h
    full join (select app_key, (timestamp / 3600000) * 3600000 as hour_start, count(*) as events,
                      count(*) filter (where type = 'error') as errors, count(*) filter (where type = 'request') as failed
                 from events group by 1, 2) e using (app_key, hour_start)
    where h.events is distinct from e.events or h.errors is distinct from e.errors or h.failed_requests is distinct from e.failed`,
  hours: 'select count(*)::int8::text as n from app_hourly',
};

type Integrity = Record<keyof typeof INTEGRITY_SQL, number>;

async function integrity(query: Query): Promise<Integrity> {
  const result = {} as Integrity;
  for (const [key, text] of Object.entries(INTEGRITY_SQL))
    result[key as keyof Integrity] = Number((await query(text))[0]?.n);
  return result;
}

// ---------------------------------------------------------------- main

async function main(): Promise<boolean> {
  const store = flags.embedded ? await embeddedStore() : await postgresStore();
  const collector = await startCollector({ repoRoot, env: { ...store.env, WORKERS: String(options.workers) } });
  cleanups.push(() => collector.stop());
  const appKeys = await createAccountWithApps(
    collector.origin,
    Array.from({ length: options.apps }, (_, i) => `Shop ${i + 1}`),
  );
  log(
    `collector pid ${collector.pid}${options.workers > 1 ? ` (the primary of ${options.workers} workers)` : ''}; ${store.describe}`,
  );
  log(`${options.clients} clients for ${options.seconds} s, ${options.duplicateShare * 100}% of batches sent twice`);
  const memory = watchMemory(collector.pid, 1000);
  const rssAtStart = memoryMiB(collector.pid).rss;
  const started = performance.now();
  const tally = newTally();
  const load = runLoad(collector.origin, appKeys, started + options.seconds * 1000, tally);
  // Progress from the answers recorded so far: every 10 s, or 30 s on long runs.
  const every = options.seconds > 120 ? 30_000 : 10_000;
  let seen = 0;
  const reporter = setInterval(() => {
    const fresh = tally.answers.slice(seen);
    seen = tally.answers.length;
    const events = fresh.filter((a) => a.status === 200).reduce((sum, a) => sum + a.accepted - a.duplicates, 0);
    const bad = tally.answers.filter((a) => a.status !== 200).length;
    log(
      `${tally.answers.length} requests, ${fmt(events / (every / 1000))} new events/s, non-200 so far ${bad}, collector RSS ${fmt(memoryMiB(collector.pid).rss)} MiB`,
    );
  }, every);
  await load;
  clearInterval(reporter);
  const elapsed = (performance.now() - started) / 1000;
  const rssAtEnd = memoryMiB(collector.pid).rss;
  const mem = memory.stop();
  const alive = collector.exited() === undefined;
  await collector.stop();
  const found = await store.inspect(integrity);
  return report({
    store,
    tally,
    found,
    elapsed,
    alive,
    rss: { start: rssAtStart, end: rssAtEnd, peak: mem.peak },
    collectorLines: collector.lines(),
    tail: collector.output(),
  });
}

function report(run: {
  store: Store;
  tally: Tally;
  found: Integrity;
  elapsed: number;
  alive: boolean;
  rss: { start: number; end: number; peak: number };
  collectorLines: number;
  tail: string[];
}): boolean {
  const { tally, found } = run;
  const answers = tally.answers;
  const ok = answers.filter((a) => a.status === 200);
  const accepted = ok.reduce((sum, a) => sum + a.accepted, 0);
  const duplicates = ok.reduce((sum, a) => sum + a.duplicates, 0);
  const rejected = ok.reduce((sum, a) => sum + a.rejected, 0);
  const statuses: Record<string, number> = {};
  for (const a of answers) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
  const serverErrors = answers.filter((a) => a.status >= 500 || a.status === 0);
  const latencies = answers.map(latencyOf);
  const out: string[] = [''];
  out.push(
    `== soak: ${options.clients} clients, ${fmt(run.elapsed)} s, ${options.duplicateShare * 100}% of batches sent twice ==`,
  );
  out.push(
    `${run.store.describe}; ${cpus().length} CPUs; ${options.apps} apps; batches of 1-50 ~2 KB browser events; ${options.thinkMs} ms mean pause between a client's batches`,
  );
  out.push('');
  out.push(
    `requests ${answers.length} (${Object.entries(statuses)
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ')}), ${fmt(answers.length / run.elapsed)} req/s`,
  );
  out.push(
    `latency ms: p50 ${fmt(percentile(latencies, 50), 1)}, p99 ${fmt(percentile(latencies, 99), 1)}, max ${fmt(Math.max(0, ...latencies))}`,
  );
  out.push(
    `batches ${tally.batches} (${tally.eventsSent} events), sent twice: ${tally.doubled.sequential + tally.doubled.concurrent} ` +
      `(${tally.doubled.sequential} again after the answer, ${tally.doubled.concurrent} both at once)`,
  );
  out.push(
    `sum of accepted ${accepted}, sum of duplicates ${duplicates}, rejected ${rejected}; distinct eventIds accepted ${tally.acceptedIds.size}`,
  );
  out.push(
    `stored events ${found.stored} (${fmt(found.stored / run.elapsed)}/s), issues ${found.issues}, hourly rows ${found.hours}`,
  );
  out.push(
    `collector RSS: ${fmt(run.rss.start)} MiB at start, ${fmt(run.rss.end)} MiB at end, peak ${fmt(run.rss.peak)} MiB`,
  );
  out.push('');
  const checks: [boolean, string][] = [
    [run.alive, 'the collector stayed up'],
    [serverErrors.length === 0, `no 5xx and no unanswered request (${serverErrors.length})`],
    [answers.length === ok.length, `every answer 200 (${answers.length - ok.length} not)`],
    [
      found.stored === tally.acceptedIds.size && found.distinct === found.stored,
      `stored events ${found.stored} == distinct eventIds accepted ${tally.acceptedIds.size}`,
    ],
    [
      accepted - duplicates === found.stored,
      `sum(accepted) - sum(duplicates) ${accepted - duplicates} == stored ${found.stored}`,
    ],
    [
      tally.doubled.inconsistent.length === 0,
      `each batch sent twice: accepted twice, its events counted once as duplicates (${tally.doubled.inconsistent.length} pairs not)`,
    ],
    [
      found.totalsEvents === found.stored && found.appsOff === 0,
      `app_totals: events ${found.totalsEvents} == count(events); errors, failed requests, issues, users exact per app (${found.appsOff} apps off)`,
    ],
    [
      found.issueEvents === found.stored && found.issueCountsOff === 0,
      `sum(issues.event_count) ${found.issueEvents} == count(events); each issue's event_count exact (${found.issueCountsOff} off)`,
    ],
    [
      found.issueUsersOff === 0,
      `issues.user_count == distinct anonymous_ids of its events (${found.issueUsersOff} issues off)`,
    ],
    [
      found.hourlyEvents === found.stored && found.hoursOff === 0,
      `app_hourly: sum ${found.hourlyEvents} == count(events); each hour exact (${found.hoursOff} hours off)`,
    ],
  ];
  for (const [met, text] of checks) out.push(`  [${met ? 'met' : 'NOT met'}] ${text}`);
  for (const sample of tally.doubled.inconsistent.slice(0, 5)) out.push(`  inconsistent: ${sample}`);
  for (const a of answers.filter((each) => each.status !== 200).slice(0, 5))
    out.push(`  non-200: ${a.status} ${a.code ?? ''} after ${fmt(latencyOf(a))} ms`);
  if (run.collectorLines > 0)
    out.push(
      `collector printed ${run.collectorLines} log line(s) at LOG_LEVEL=warn; last: ${run.tail.slice(-2).join(' | ').slice(0, 600)}`,
    );
  const failed = checks.filter(([met]) => !met).length;
  out.push('');
  out.push(failed === 0 ? `all ${checks.length} checks met` : `${failed} of ${checks.length} checks NOT met`);
  console.log(out.join('\n'));
  return failed === 0;
}

await exitAfter(main);
