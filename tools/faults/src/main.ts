// `pnpm faults`: the collector under steady ingestion while its PostgreSQL fails in three ways, on a cluster this
// command creates, owns and removes. Prints the figures and exits non-zero when a requirement is not met.
//
//   (a) pg_terminate_backend of every connection of the service (5 rounds, 200 ms apart)
//   (b) PostgreSQL stopped (pg_ctl stop -m fast) for 10 s, then started again
//   (c) the postmaster and all its processes frozen (SIGSTOP) for 10 s, then thawed (SIGCONT)
//
//   options: --clients 4 --batch-size 10 --fault-seconds 10 --observe 10 --think-ms 50 --retry-ms 200

import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import {
  type Answer,
  cleanupOnExit,
  createAccountWithApps,
  createEventSource,
  fmt,
  freePort,
  latencyOf,
  parseFlags,
  postBatch,
  startCollector,
} from '@collector/tool-kit';
import pg from 'pg';
import { type Cluster, createCluster, PG_BIN } from './cluster';

const { number } = parseFlags(
  'pnpm faults [--clients 4] [--batch-size 10] [--fault-seconds 10] [--observe 10] [--think-ms 50] [--retry-ms 200]',
  {
    clients: { type: 'string', default: '4' },
    'batch-size': { type: 'string', default: '10' },
    'fault-seconds': { type: 'string', default: '10' },
    observe: { type: 'string', default: '10' },
    'think-ms': { type: 'string', default: '50' },
    'retry-ms': { type: 'string', default: '200' },
  },
);
const options = {
  clients: number('clients', 1, 64),
  batchSize: number('batch-size', 1, 50),
  faultMs: number('fault-seconds', 1, 120) * 1000,
  observeMs: number('observe', 6, 120) * 1000,
  thinkMs: number('think-ms', 0, 5000),
  retryMs: number('retry-ms', 0, 5000),
};
// The requirements (docs/reliability.md).
const LIMIT_MS = 5_000;
const REQUEST_TIMEOUT_MS = 30_000;
const READYZ_EVERY_MS = 200;
const TERMINATE_ROUNDS = 5;
const TERMINATE_EVERY_MS = 200;

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const { cleanups, exitAfter } = cleanupOnExit('thawing and removing the cluster, stopping the collector');

const t0 = performance.now();
const at = (ms: number) => `${fmt((ms - t0) / 1000, 1)} s`;
const log = (text: string) => process.stderr.write(`[${at(performance.now()).padStart(7)}] ${text}\n`);

// ---------------------------------------------------------------- load and probes

interface Poll {
  sentAt: number;
  answeredAt: number;
  status: number;
}

function startLoad(origin: string, appKey: string) {
  const source = createEventSource({ batchSize: options.batchSize, seed: 7 });
  const answers: Answer[] = [];
  let stopping = false;
  let drainDeadline = Number.POSITIVE_INFINITY;
  let batches = 0;
  const unfinished: number[] = [];
  // An SDK's behaviour: a batch refused with 503 (or unanswered) is sent again, the same eventIds, until it is taken.
  const client = async () => {
    while (!stopping) {
      const batch = batches++;
      const body = source.batch(appKey);
      for (let attempt = 1; ; attempt++) {
        const answer = await postBatch(origin, body, { batch, attempt, events: options.batchSize }, REQUEST_TIMEOUT_MS);
        answers.push(answer);
        if (answer.status === 200) break;
        if (answer.status !== 503 && answer.status !== 0) break;
        if (performance.now() > drainDeadline) {
          unfinished.push(batch);
          break;
        }
        await sleep(options.retryMs);
      }
      await sleep(options.thinkMs);
    }
  };
  const running = Array.from({ length: options.clients }, () => client());
  return {
    answers,
    unfinished,
    batches: () => batches,
    /** Stops sending new batches; batches still refused are retried for up to a minute. */
    stop: async () => {
      stopping = true;
      drainDeadline = performance.now() + 60_000;
      await Promise.all(running);
    },
  };
}

function pollReadyz(origin: string) {
  const polls: Poll[] = [];
  let stopping = false;
  const loop = (async () => {
    while (!stopping) {
      const sentAt = performance.now();
      let status = 0;
      try {
        const response = await fetch(`${origin}/readyz`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
        await response.arrayBuffer();
        status = response.status;
      } catch {
        // status 0: no answer
      }
      polls.push({ sentAt, answeredAt: performance.now(), status });
      await sleep(Math.max(0, READYZ_EVERY_MS - (performance.now() - sentAt)));
    }
  })();
  return {
    polls,
    stop: async () => {
      stopping = true;
      await loop;
    },
  };
}

// ---------------------------------------------------------------- faults

interface Phase {
  name: string;
  detail: string;
  /** The fault begins (the command is issued). */
  start: number;
  /** PostgreSQL is fully unavailable (stop returned; frozen). Equal to `back` for (a). */
  down: number;
  /** The fault is being lifted (pg_ctl start issued; SIGCONT sent; terminate done): PostgreSQL may answer from here on. */
  lifting: number;
  /** PostgreSQL answers again (start returned; thawed; terminate done). */
  back: number;
  /** End of the observation after `back`. */
  end: number;
}

async function injectAll(cluster: Cluster): Promise<Phase[]> {
  const phases: Phase[] = [];
  const observe = async (phase: Omit<Phase, 'end'>) => {
    await sleep(options.observeMs);
    phases.push({ ...phase, end: performance.now() });
  };

  log(`(a) terminating the service's connections, ${TERMINATE_ROUNDS} times ${TERMINATE_EVERY_MS} ms apart`);
  {
    // Several rounds: a single one mostly finds the connections idle, between two short statements.
    const start = performance.now();
    const counts: number[] = [];
    for (let round = 0; round < TERMINATE_ROUNDS; round++) {
      if (round > 0) await sleep(TERMINATE_EVERY_MS);
      counts.push(await cluster.terminate('collector'));
    }
    const back = performance.now();
    log(`(a) ${counts.join('+')} connection(s) terminated; observing ${options.observeMs / 1000} s`);
    await observe({
      name: '(a) terminate',
      detail: `pg_terminate_backend of every session, ${TERMINATE_ROUNDS} rounds ${TERMINATE_EVERY_MS} ms apart (${counts.join('+')} sessions)`,
      start,
      down: back,
      lifting: back,
      back,
    });
  }

  log(`(b) stopping PostgreSQL for ${options.faultMs / 1000} s`);
  {
    const start = performance.now();
    await cluster.stop();
    const down = performance.now();
    await sleep(options.faultMs);
    const restarting = performance.now();
    await cluster.start();
    const back = performance.now();
    log(`(b) stop took ${fmt(down - start)} ms, start ${fmt(back - restarting)} ms; observing`);
    await observe({
      name: '(b) stop/start',
      detail: `pg_ctl stop -m fast (${fmt(down - start)} ms), ${options.faultMs / 1000} s down, pg_ctl start (${fmt(back - restarting)} ms)`,
      start,
      down,
      lifting: restarting,
      back,
    });
  }

  log(`(c) freezing PostgreSQL (SIGSTOP) for ${options.faultMs / 1000} s`);
  {
    const start = performance.now();
    const frozen = cluster.freeze();
    await sleep(options.faultMs);
    const back = performance.now();
    cluster.thaw();
    log(`(c) ${frozen} process(es) thawed; observing`);
    await observe({
      name: '(c) SIGSTOP',
      detail: `SIGSTOP of ${frozen} processes (postmaster + children) for ${options.faultMs / 1000} s, then SIGCONT`,
      start,
      down: start,
      lifting: back,
      back,
    });
  }
  return phases;
}

// ---------------------------------------------------------------- figures

interface PhaseFigures {
  phase: Phase;
  requests: number;
  statuses: Record<string, number>;
  unexpected: Answer[];
  unavailableWithoutRetryAfter: number;
  maxLatency: number;
  maxLatencyAnswer: string;
  recoveryMs: number;
  failedLate: number;
  readyzDownAfter: number;
  readyzOkWhileDown: number;
  readyzUpAfter: number;
  /** Batches answered 503 whose retry found their events stored: the statement had committed after the service gave up. */
  committedAnyway: number;
  checks: [boolean, string][];
}

function figures(phase: Phase, answers: Answer[], polls: Poll[], isOutage: boolean): PhaseFigures {
  const inPhase = answers.filter((a) => a.sentAt >= phase.start && a.sentAt < phase.end);
  const statuses: Record<string, number> = {};
  for (const a of inPhase) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
  const unexpected = inPhase.filter((a) => a.status !== 200 && a.status !== 503);
  const unavailable = inPhase.filter((a) => a.status === 503);
  const unavailableWithoutRetryAfter = unavailable.filter(
    (a) => !a.retryAfter || !/^\d+$/.test(a.retryAfter) || a.code !== 'UNAVAILABLE',
  ).length;
  // Every request in flight at any moment between the fault and a second after PostgreSQL is back.
  const overlapping = answers.filter((a) => a.sentAt < phase.back + 1000 && a.answeredAt >= phase.start);
  const slowest = overlapping.reduce<Answer | undefined>(
    (max, a) => (!max || latencyOf(a) > latencyOf(max) ? a : max),
    undefined,
  );
  const after = answers.filter((a) => a.sentAt >= phase.back && a.sentAt < phase.end);
  const firstOk = after.filter((a) => a.status === 200).sort((a, b) => a.answeredAt - b.answeredAt)[0];
  const recoveryMs = firstOk ? firstOk.answeredAt - phase.back : Number.NaN;
  // Answered before the next fault began: a request sent just before it is that fault's, not this one's.
  const failedLate = after.filter(
    (a) => a.sentAt >= phase.back + LIMIT_MS && a.answeredAt < phase.end && a.status !== 200,
  ).length;

  const firstDown = polls.find((p) => p.sentAt >= phase.start && p.sentAt < phase.end && p.status !== 200);
  const readyzDownAfter = firstDown ? firstDown.answeredAt - phase.start : Number.NaN;
  // The probe gives up after 1.5 s: a poll sent 2.5 s after PostgreSQL went away, and answered before it was being
  // brought back (pg_ctl start returns up to 100 ms after the server is ready), must say so.
  const readyzOkWhileDown = polls.filter(
    (p) => p.sentAt >= phase.down + 2_500 && p.answeredAt < phase.lifting && p.status === 200,
  ).length;
  const upAgain = polls.find((p) => p.sentAt >= phase.back && p.status === 200);
  const readyzUpAfter = upAgain ? upAgain.answeredAt - phase.back : Number.NaN;
  const readyzLate = polls.filter(
    (p) => p.sentAt >= phase.back + LIMIT_MS && p.answeredAt < phase.end && p.status !== 200,
  ).length;

  const checks: [boolean, string][] = [
    [unexpected.length === 0, `only 200 and 503 (${unexpected.length} other)`],
    [
      unavailableWithoutRetryAfter === 0,
      `every 503 is UNAVAILABLE with Retry-After (${unavailableWithoutRetryAfter} not)`,
    ],
    [
      (slowest ? latencyOf(slowest) : 0) < LIMIT_MS,
      `every answer during the fault within ${LIMIT_MS / 1000} s (max ${fmt(slowest ? latencyOf(slowest) : 0)} ms)`,
    ],
    [recoveryMs < LIMIT_MS, `200 again within ${LIMIT_MS / 1000} s of PostgreSQL being back (${fmt(recoveryMs)} ms)`],
    [failedLate === 0, `nothing but 200 from ${LIMIT_MS / 1000} s after PostgreSQL is back (${failedLate} not)`],
    [
      readyzUpAfter < LIMIT_MS && readyzLate === 0,
      `/readyz 200 again within ${LIMIT_MS / 1000} s (${fmt(readyzUpAfter)} ms) and stays 200 (${readyzLate} not)`,
    ],
  ];
  if (isOutage) {
    checks.push([
      Number.isFinite(readyzDownAfter) && readyzOkWhileDown === 0,
      `/readyz 503 while PostgreSQL is away (first after ${fmt(readyzDownAfter)} ms; ${readyzOkWhileDown} polls said ready)`,
    ]);
  }
  return {
    phase,
    requests: inPhase.length,
    statuses,
    unexpected,
    unavailableWithoutRetryAfter,
    maxLatency: slowest ? latencyOf(slowest) : 0,
    maxLatencyAnswer: slowest
      ? `${slowest.status}${slowest.code ? ` ${slowest.code}` : ''} sent at ${at(slowest.sentAt)}`
      : '-',
    recoveryMs,
    failedLate,
    readyzDownAfter,
    readyzOkWhileDown,
    readyzUpAfter,
    committedAnyway: inPhase.filter((a) => a.status === 200 && a.attempt > 1 && a.duplicates > 0).length,
    checks,
  };
}

async function countStored(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const one = async (text: string) => Number((await client.query<{ n: string }>(text)).rows[0]?.n);
    return {
      events: await one('select count(*)::text as n from events'),
      distinct: await one('select count(distinct (app_key, event_id))::text as n from events'),
      totals: await one('select coalesce(sum(events), 0)::text as n from app_totals'),
      issueEvents: await one('select coalesce(sum(event_count), 0)::text as n from issues_live'),
      hourly: await one('select coalesce(sum(events), 0)::text as n from app_hourly'),
    };
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------- main

async function main(): Promise<boolean> {
  const port = await freePort();
  log(`creating a PostgreSQL cluster (${PG_BIN}) on 127.0.0.1:${port}`);
  const cluster = await createCluster(port);
  cleanups.push(() => cluster.destroy());
  await cluster.start();
  const admin = new pg.Client({ connectionString: cluster.url('postgres') });
  await admin.connect();
  const version = (await admin.query<{ server_version: string }>('show server_version')).rows[0]?.server_version;
  await admin.query('create database collector');
  await admin.end();

  const collector = await startCollector({ repoRoot, env: { DATABASE_URL: cluster.url('collector') } });
  cleanups.push(() => collector.stop());
  const [appKey] = (await createAccountWithApps(collector.origin, ['Shop'])) as [string];
  log(
    `collector pid ${collector.pid} at ${collector.origin}; load: ${options.clients} clients, ${options.batchSize}-event batches`,
  );

  const load = startLoad(collector.origin, appKey);
  const readyz = pollReadyz(collector.origin);
  await sleep(5_000);
  const steadyEnd = performance.now();
  const phases = await injectAll(cluster);
  log('stopping the load (refused batches are retried until taken)');
  await load.stop();
  await readyz.stop();
  const aliveThroughout = collector.exited() === undefined;
  await collector.stop();
  const exit = collector.exited() ?? { code: null, signal: null };
  const stored = await countStored(cluster.url('collector'));

  // ------------------------------------------------------------ report
  const answers = load.answers;
  const ok = answers.filter((a) => a.status === 200);
  const accepted = ok.reduce((sum, a) => sum + a.accepted, 0);
  const duplicates = ok.reduce((sum, a) => sum + a.duplicates, 0);
  const rejected = ok.reduce((sum, a) => sum + a.rejected, 0);
  const completedBatches = new Set(ok.map((a) => a.batch));
  const distinctAccepted = completedBatches.size * options.batchSize;
  const allStatuses: Record<string, number> = {};
  for (const a of answers) allStatuses[a.status] = (allStatuses[a.status] ?? 0) + 1;
  const steady = answers.filter((a) => a.sentAt < steadyEnd);
  const steadyMax = Math.max(0, ...steady.map(latencyOf));
  const results = phases.map((phase, i) => figures(phase, answers, readyz.polls, i > 0));

  const out: string[] = [''];
  out.push(
    `== database faults: PostgreSQL ${version} cluster of its own (${cluster.root}), collector pid ${collector.pid} ==`,
  );
  out.push(
    `load: ${options.clients} clients, ${options.batchSize}-event batches, ${options.thinkMs} ms between batches, a refused batch retried after ${options.retryMs} ms; ` +
      `/readyz polled every ${READYZ_EVERY_MS} ms; faults ${options.faultMs / 1000} s, each observed ${options.observeMs / 1000} s after PostgreSQL is back`,
  );
  out.push(`steady state before the faults: ${steady.length} requests, max latency ${fmt(steadyMax)} ms`);
  out.push('');
  out.push(
    `${'fault'.padEnd(16)}${'requests'.padStart(9)}${'200'.padStart(7)}${'503'.padStart(6)}${'other'.padStart(7)}${'max latency'.padStart(13)}${'recovery'.padStart(10)}` +
      `${'readyz 503 after'.padStart(18)}${'readyz 200 after back'.padStart(23)}`,
  );
  for (const r of results) {
    const other = r.requests - (r.statuses['200'] ?? 0) - (r.statuses['503'] ?? 0);
    out.push(
      `${r.phase.name.padEnd(16)}${String(r.requests).padStart(9)}${String(r.statuses['200'] ?? 0).padStart(7)}${String(r.statuses['503'] ?? 0).padStart(6)}${String(other).padStart(7)}` +
        `${`${fmt(r.maxLatency)} ms`.padStart(13)}${`${fmt(r.recoveryMs)} ms`.padStart(10)}` +
        `${(Number.isFinite(r.readyzDownAfter) ? `${fmt(r.readyzDownAfter)} ms` : 'never').padStart(18)}${`${fmt(r.readyzUpAfter)} ms`.padStart(23)}`,
    );
  }
  out.push('');
  out.push(
    'max latency: the slowest answer among requests in flight from the fault until 1 s after PostgreSQL is back;',
  );
  out.push(
    'recovery: from PostgreSQL back (terminate done, pg_ctl start returned, SIGCONT sent) to the first 200 of a request sent after it.',
  );
  for (const r of results) {
    out.push('');
    out.push(
      `${r.phase.name}: ${r.phase.detail}; at ${at(r.phase.start)}, back at ${at(r.phase.back)}; slowest: ${r.maxLatencyAnswer}`,
    );
    out.push(`  refused batches found stored by their retry (committed after the 503): ${r.committedAnyway}`);
    for (const [met, text] of r.checks) out.push(`  [${met ? 'met' : 'NOT met'}] ${text}`);
    for (const a of r.unexpected.slice(0, 5))
      out.push(`  unexpected: ${a.status} ${a.code ?? ''} sent at ${at(a.sentAt)} after ${fmt(latencyOf(a))} ms`);
  }

  const retriedBatches = new Set(answers.filter((a) => a.attempt > 1).map((a) => a.batch)).size;
  const lossFree =
    stored.events === accepted && stored.events === distinctAccepted && stored.events === stored.distinct;
  const countersExact =
    stored.totals === stored.events && stored.issueEvents === stored.events && stored.hourly === stored.events;
  const overall: [boolean, string][] = [
    [
      aliveThroughout,
      `the collector stayed up through every fault (${aliveThroughout ? 'alive' : `exited at ${at(collector.exited()?.at ?? 0)}`})`,
    ],
    [
      !answers.some((a) => a.status >= 500 && a.status !== 503),
      `no 5xx but 503 (${answers.filter((a) => a.status >= 500 && a.status !== 503).length})`,
    ],
    [
      !answers.some((a) => a.status === 0),
      `every request answered (${answers.filter((a) => a.status === 0).length} without an answer)`,
    ],
    [
      load.unfinished.length === 0,
      `every batch taken in the end (${load.unfinished.length} still refused after a minute of retries)`,
    ],
    [
      lossFree,
      `stored events ${stored.events} == sum of accepted ${accepted} == eventIds of batches answered 200 ${distinctAccepted}`,
    ],
    [
      countersExact,
      `counters exact: app_totals ${stored.totals}, sum(issues.event_count) ${stored.issueEvents}, app_hourly ${stored.hourly}`,
    ],
    [exit.code === 0, `SIGTERM at the end: exit code ${exit.code}${exit.signal ? ` (signal ${exit.signal})` : ''}`],
  ];
  out.push('');
  out.push(
    `all requests: ${answers.length} (${Object.entries(allStatuses)
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ')}); batches ${load.batches()}, of which ${retriedBatches} needed a retry`,
  );
  out.push(
    `sum of accepted ${accepted} (duplicates ${duplicates}: events of a refused attempt that had been committed after all, taken again by the retry; rejected ${rejected}); ` +
      `stored ${stored.events}`,
  );
  for (const [met, text] of overall) out.push(`  [${met ? 'met' : 'NOT met'}] ${text}`);
  const lines = collector.lines();
  if (lines > 0)
    out.push(
      `collector printed ${lines} log line(s) at LOG_LEVEL=warn; last: ${collector.output().slice(-2).join(' | ').slice(0, 600)}`,
    );
  const all = [...results.flatMap((r) => r.checks), ...overall];
  const failed = all.filter(([met]) => !met).length;
  out.push('');
  out.push(
    failed === 0
      ? `all ${all.length} requirements met (run took ${fmt((performance.now() - t0) / 1000)} s)`
      : `${failed} of ${all.length} requirements NOT met`,
  );
  console.log(out.join('\n'));
  if (failed > 0) console.log(`\nserver log (last lines):\n${cluster.logTail(15)}`);
  return failed === 0;
}

await exitAfter(main);
