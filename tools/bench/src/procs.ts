// Child processes (the servers under test) and what /proc says about them: memory and CPU time.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export type Cleanup = () => Promise<void> | void;

/**
 * What a tool must undo before it exits (servers, databases, folders): `cleanup()` runs the steps last-added first,
 * each even when another fails. SIGINT and SIGTERM run them too, saying `onSignal`, then exit 130.
 */
export function cleanupOnExit(onSignal: string): { cleanups: Cleanup[]; cleanup: () => Promise<void> } {
  const cleanups: Cleanup[] = [];
  async function cleanup() {
    while (cleanups.length > 0) {
      try {
        await cleanups.pop()?.();
      } catch (error) {
        console.error('cleanup:', (error as Error).message);
      }
    }
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      console.error(`\n${signal}: ${onSignal}`);
      void cleanup().then(() => process.exit(130));
    });
  }
  return { cleanups, cleanup };
}

/** Registers an account on a running collector through its API and creates one web app per name; their appKeys. */
export async function createAccountWithApps(origin: string, appNames: readonly string[]): Promise<string[]> {
  const post = async (path: string, body: unknown, token?: string) => {
    const response = await fetch(`${origin}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    const json = (await response.json()) as Record<string, any>;
    if (response.status !== 201) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  const { token } = await post('/api/auth/register', { email: `tools-${Date.now()}-${process.pid}@example.com`, password: 'tools passphrase for collector' });
  const appKeys: string[] = [];
  for (const name of appNames) {
    const { app } = await post('/api/apps', { name, type: 'web' }, token);
    appKeys.push(app.appKey as string);
  }
  return appKeys;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface Child {
  name: string;
  pid: number;
  origin: string;
  process: ChildProcess;
  /** The last lines it printed (stdout and stderr), for diagnostics. */
  output(): string[];
  /** How many lines it printed in all. */
  lines(): number;
  stop(): Promise<void>;
}

export interface SpawnOptions {
  name: string;
  script: string;
  cwd: string;
  port: number;
  env: Record<string, string>;
  nodeArgs?: string[];
}

/** Starts `node --import tsx <script>` with a clean environment plus `env`, and waits until GET /readyz answers 200. */
export async function startChild(options: SpawnOptions, readyTimeoutMs = 60_000): Promise<Child> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    // Nothing of the caller's own database configuration may leak into a server under test.
    if (value !== undefined && !['DATABASE_URL', 'DATA_DIR', 'PORT', 'HOST', 'INGEST_RATE_LIMIT', 'INGEST_RATE_BURST', 'LOG_LEVEL', 'DATABASE_POOL_SIZE'].includes(key)) {
      env[key] = value;
    }
  }
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), '--import', 'tsx', options.script], {
    cwd: options.cwd,
    env: { ...env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail: string[] = [];
  let lineCount = 0;
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line) continue;
      lineCount++;
      tail.push(line.length > 2000 ? `${line.slice(0, 2000)}...` : line);
      if (tail.length > 40) tail.shift();
    }
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });

  const origin = `http://127.0.0.1:${options.port}`;
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (exited) throw new Error(`${options.name} exited before it was ready:\n${tail.join('\n')}`);
    try {
      const response = await fetch(`${origin}/readyz`);
      if (response.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${options.name} not ready after ${readyTimeoutMs} ms:\n${tail.join('\n')}`);
    }
    await sleep(100);
  }

  return {
    name: options.name,
    pid: child.pid as number,
    origin,
    process: child,
    output: () => [...tail],
    lines: () => lineCount,
    stop: async () => {
      if (exited) return;
      const exit = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exit;
      clearTimeout(timer);
    },
  };
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

interface Stat {
  pid: number;
  comm: string;
  ppid: number;
  /** utime + stime, ms */
  cpu: number;
  /** cutime + cstime (reaped children), ms */
  childCpu: number;
}

function readStat(pid: number | string): Stat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  const rest = text.slice(close + 2).split(' ');
  const tick = (i: number) => (Number(rest[i]) * 1000) / CLOCK_TICKS;
  return {
    pid: Number(pid),
    comm: text.slice(open + 1, close),
    ppid: Number(rest[1]),
    cpu: tick(11) + tick(12),
    childCpu: tick(13) + tick(14),
  };
}

/** CPU time (ms) a process has used so far. */
export function processCpuMs(pid: number): number {
  return readStat(pid)?.cpu ?? Number.NaN;
}

/**
 * CPU time (ms) of the local PostgreSQL server: the postmaster, its live children, and the children it has reaped.
 * NaN when PostgreSQL is not visible in /proc (another host or container).
 */
export function postgresCpuMs(): number {
  const stats: Stat[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(entry);
    if (stat && stat.comm === 'postgres') stats.push(stat);
  }
  const pids = new Set(stats.map((stat) => stat.pid));
  const postmasters = stats.filter((stat) => !pids.has(stat.ppid));
  if (postmasters.length === 0) return Number.NaN;
  return stats.reduce((sum, stat) => sum + stat.cpu + (pids.has(stat.ppid) ? 0 : stat.childCpu), 0);
}

/** VmRSS and VmHWM (peak) of a process, in MiB. */
export function memoryMiB(pid: number): { rss: number; peak: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? Number.NaN);
    return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
  } catch {
    return { rss: Number.NaN, peak: Number.NaN };
  }
}

/** Samples a process's memory every `everyMs` until stopped; returns the highest RSS seen and the kernel's own peak. */
export function watchMemory(pid: number, everyMs = 200) {
  let maxRss = 0;
  let peak = 0;
  const sample = () => {
    const { rss, peak: hwm } = memoryMiB(pid);
    if (rss > maxRss) maxRss = rss;
    if (hwm > peak) peak = hwm;
  };
  const timer = setInterval(sample, everyMs);
  timer.unref();
  return {
    sample,
    result: () => ({ maxRss, peak }),
    stop: () => {
      sample();
      clearInterval(timer);
      return { maxRss, peak };
    },
  };
}

/** CPU time (ms) the whole machine has spent busy (all CPUs, not idle nor waiting on I/O), from /proc/stat. */
export function machineBusyMs(): number {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] as string;
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number) as number[];
    return (((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * 1000) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}
