// `pnpm --filter @collector/bench footprint`: memory of the whole service (the collector's processes and its
// embedded PostgreSQL server's) idle and under steady load, and the events/s it ingests meanwhile, for each backend,
// started as `pnpm start` starts it (the production build, plain node).
//
//   pnpm --filter @collector/bench footprint                        embedded PostgreSQL, PGlite, and PostgreSQL on 127.0.0.1:5432
//   pnpm --filter @collector/bench footprint --backends embedded     one backend
//   options: --seconds 20 (load) --idle 10 (wait before the idle sample) --clients 4 --workers 1 --tsx (run src with tsx)
//
// RSS counts a shared page in every process that touched it, so a sum over PostgreSQL's processes counts its shared
// buffers several times; PSS shares each page among its users, and is the figure that adds up. Both are printed.
// On PostgreSQL (your own server) only the collector's processes are counted: the database server is not the service's.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  cleanupOnExit,
  createAccountWithApps,
  createEventSource,
  freePort,
  machineBusyMs,
  processTree,
  productionNodeArgs,
} from '@collector/tool-kit';
import pg from 'pg';
import { closedLoopRound, emptyTally } from './load';

const { values: flags } = parseArgs({
  options: {
    backends: { type: 'string', default: 'embedded,pglite,postgres' },
    seconds: { type: 'string', default: '20' },
    idle: { type: 'string', default: '10' },
    clients: { type: 'string', default: '4' },
    workers: { type: 'string', default: '1' },
    tsx: { type: 'boolean', default: false },
    'pg-url': { type: 'string', default: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
  strict: true,
});
const root = fileURLToPath(new URL('../../..', import.meta.url));
const { cleanups, cleanup } = cleanupOnExit('stopping the collector and removing its data');

interface Memory {
  processes: number;
  rssMiB: number;
  pssMiB: number;
  /** RSS and PSS per kind of process (node; postgres: its title, e.g. "postgres: checkpointer"), MiB. */
  byKind: Map<string, { count: number; rssMiB: number; pssMiB: number }>;
}

/** What a process is: its command for node and the guard, its process title for PostgreSQL's (backends alike). */
function kindOf(pid: number): string {
  const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  const first = cmdline[0] ?? '?';
  if (first.startsWith('postgres:'))
    return /\b(127\.0\.0\.1|\[local\])/.test(first) ? 'postgres: backend' : first.replace(/\s+$/, '');
  return first.split('/').pop() ?? first;
}

function memory(rootPid: number): Memory {
  let rss = 0;
  let pss = 0;
  let processes = 0;
  const byKind: Memory['byKind'] = new Map();
  for (const pid of processTree(rootPid)) {
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      const rssKiB = Number(/^Rss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      const pssKiB = Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      rss += rssKiB;
      pss += pssKiB;
      processes++;
      const kind = kindOf(pid);
      const sum = byKind.get(kind) ?? { count: 0, rssMiB: 0, pssMiB: 0 };
      byKind.set(kind, {
        count: sum.count + 1,
        rssMiB: sum.rssMiB + rssKiB / 1024,
        pssMiB: sum.pssMiB + pssKiB / 1024,
      });
    } catch {
      // gone meanwhile
    }
  }
  return { processes, rssMiB: rss / 1024, pssMiB: pss / 1024, byKind };
}

async function ready(origin: string, child: ChildProcess, output: string[]) {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the collector exited:\n${output.join('\n')}`);
    try {
      if ((await fetch(`${origin}/readyz`)).status === 200) return;
    } catch {
      // not yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the collector was not ready within 120 s:\n${output.join('\n')}`);
}

async function measure(backend: string) {
  const port = await freePort();
  const env: Record<string, string> = {
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    INGEST_RATE_LIMIT: '0',
    WORKERS: flags.workers as string,
  };
  let database: string | undefined;
  if (backend === 'postgres') {
    database = `footprint_${Date.now()}`;
    const admin = new pg.Client(flags['pg-url']);
    await admin.connect();
    await admin.query(`create database ${database}`);
    await admin.end();
    const url = new URL(flags['pg-url'] as string);
    url.pathname = `/${database}`;
    env.DATABASE_URL = url.href;
    cleanups.push(async () => {
      const drop = new pg.Client(flags['pg-url']);
      await drop.connect();
      await drop.query(`drop database if exists ${database} with (force)`);
      await drop.end();
    });
  } else {
    const folder = mkdtempSync(join(tmpdir(), 'collector-footprint-'));
    chmodSync(folder, 0o755);
    cleanups.push(() => rmSync(folder, { recursive: true, force: true }));
    env.DATA_DIR = join(folder, 'data');
    if (backend === 'pglite') env.EMBEDDED = 'pglite';
  }
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !['DATABASE_URL', 'DATA_DIR', 'EMBEDDED', 'PORT'].includes(key)),
  );
  const args = flags.tsx
    ? ['--import', 'tsx', 'services/collector/src/main.ts']
    : [...productionNodeArgs(root), 'services/collector/dist/main.mjs'];
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  cleanups.push(async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  });
  const origin = `http://127.0.0.1:${port}`;
  await ready(origin, child, output);
  const startMs = performance.now() - started;
  const [appKey] = await createAccountWithApps(origin, ['Footprint']);
  await new Promise((resolve) => setTimeout(resolve, Number(flags.idle) * 1000));
  const idle = memory(child.pid as number);

  const source = createEventSource();
  let peak: Memory = idle;
  const sampler = setInterval(() => {
    const now = memory(child.pid as number);
    if (now.rssMiB > peak.rssMiB) peak = { ...now, pssMiB: Math.max(now.pssMiB, peak.pssMiB) };
    else if (now.pssMiB > peak.pssMiB) peak = { ...peak, pssMiB: now.pssMiB };
  }, 250);
  const busyBefore = machineBusyMs();
  const round = await closedLoopRound({ name: backend, origin, appKey: appKey as string }, source, emptyTally(), {
    connections: Number(flags.clients),
    seconds: Number(flags.seconds),
  });
  clearInterval(sampler);
  const busyShare =
    (machineBusyMs() - busyBefore) /
    (round.seconds * 1000 * (Number(execFileSync('nproc', { encoding: 'utf8' })) || 1));
  await cleanup();
  return {
    backend,
    startMs,
    idle,
    peak,
    eventsPerSecond: round.eventsPerSecond,
    non2xx: round.non2xx,
    p99: round.p99,
    busyShare,
  };
}

if (!flags.tsx)
  execFileSync(process.execPath, ['services/collector/scripts/ensure-built.mjs'], { cwd: root, stdio: 'inherit' });
const rows = [];
try {
  for (const backend of (flags.backends as string).split(',')) {
    console.log(`measuring ${backend} (${flags.tsx ? 'tsx' : 'production build'}, ${flags.workers} worker(s))...`);
    rows.push(await measure(backend));
  }
} finally {
  await cleanup();
}
const f = (n: number) => n.toFixed(0).padStart(6);
console.log(
  `\n${flags.clients} clients for ${flags.seconds} s, ${flags.workers} worker(s), ${flags.tsx ? 'tsx' : 'production build'}`,
);
console.log(
  'backend   | start ms | idle procs  RSS MiB  PSS MiB | load peak RSS  PSS MiB | events/s | p99 ms | non-2xx | machine busy',
);
for (const row of rows) {
  console.log(
    `${row.backend.padEnd(9)} | ${f(row.startMs)}   | ${String(row.idle.processes).padStart(10)} ${f(row.idle.rssMiB)}   ${f(row.idle.pssMiB)}   | ${f(row.peak.rssMiB)}        ${f(row.peak.pssMiB)}    | ${f(row.eventsPerSecond)}   | ${f(row.p99)} | ${String(row.non2xx).padStart(7)} | ${(row.busyShare * 100).toFixed(0)}%`,
  );
}
console.log('\nat the peak RSS sample, by process (RSS / PSS MiB):');
for (const row of rows) {
  const kinds = [...row.peak.byKind].sort((a, b) => b[1].rssMiB - a[1].rssMiB);
  console.log(
    `${row.backend.padEnd(9)} ${kinds.map(([kind, m]) => `${kind}${m.count > 1 ? ` x${m.count}` : ''} ${m.rssMiB.toFixed(0)}/${m.pssMiB.toFixed(0)}`).join(', ')}`,
  );
}
