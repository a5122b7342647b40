// The collector (or any server under test) as a child process of a tool, and an account with apps on it.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** An app as the collector's API answers it (the fields the tools read). */
export interface CreatedApp {
  appKey: string;
  dsn: string;
}

/** Registers an account on a running collector through its API and creates one web app per name; the apps. */
export async function createAccountWithAppRecords(origin: string, appNames: readonly string[]): Promise<CreatedApp[]> {
  const post = async (path: string, body: unknown, token?: string) => {
    const response = await fetch(`${origin}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    const json = (await response.json()) as { token: string; app: unknown };
    if (response.status !== 201) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  const { token } = await post('/api/auth/register', {
    email: `tools-${Date.now()}-${process.pid}@example.com`,
    password: 'tools passphrase for collector',
  });
  const apps: CreatedApp[] = [];
  for (const name of appNames) {
    const { app } = await post('/api/apps', { name, type: 'web' }, token);
    apps.push(app as CreatedApp);
  }
  return apps;
}

/** The same, for tools that need only the appKeys. */
export async function createAccountWithApps(origin: string, appNames: readonly string[]): Promise<string[]> {
  return (await createAccountWithAppRecords(origin, appNames)).map((app) => app.appKey);
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
  /** Set once the process has exited: its code or signal, and when (`performance.now()`). */
  exited(): Exit | undefined;
  stop(): Promise<void>;
}

export interface Exit {
  at: number;
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface SpawnOptions {
  name: string;
  script: string;
  cwd: string;
  port: number;
  env: Record<string, string>;
  nodeArgs?: string[];
}

/**
 * Starts `node <script>` (`node --import tsx <script>` for TypeScript) with a clean environment plus `env`, and waits until
 * GET /readyz answers 200.
 */
export async function startChild(options: SpawnOptions, readyTimeoutMs = 60_000): Promise<Child> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    // Nothing of the caller's own database configuration may leak into a server under test.
    if (
      value !== undefined &&
      ![
        'DATABASE_URL',
        'DATA_DIR',
        'EMBEDDED',
        'WORKERS',
        'PORT',
        'HOST',
        'INGEST_RATE_LIMIT',
        'INGEST_RATE_BURST',
        'LOG_LEVEL',
        'DATABASE_POOL_SIZE',
      ].includes(key)
    ) {
      env[key] = value;
    }
  }
  const loader = options.script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...loader, options.script], {
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
  let exit: Exit | undefined;
  child.once('exit', (code, signal) => {
    exit = { at: performance.now(), code, signal };
  });

  const origin = `http://127.0.0.1:${options.port}`;
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (exit) throw new Error(`${options.name} exited before it was ready:\n${tail.join('\n')}`);
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
    exited: () => exit,
    stop: async () => {
      if (exit) return;
      const exiting = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exiting;
      clearTimeout(timer);
    },
  };
}

/**
 * Starts the collector on a free port of 127.0.0.1, with the ingestion rate limit off (a load tool would measure 429s
 * otherwise) and warnings only in its log; `env` adds the database and overrides. It runs what `pnpm start` runs: the
 * bundle services/collector/dist/main.mjs under plain node, built first when missing or stale; `source: true` runs
 * src/main.ts through tsx instead.
 */
export async function startCollector(options: {
  repoRoot: string;
  env: Record<string, string>;
  nodeArgs?: string[];
  readyTimeoutMs?: number;
  source?: boolean;
}): Promise<Child> {
  if (!options.source) ensureCollectorBuilt(options.repoRoot);
  // The flags `pnpm start` gives node, then the caller's (a later flag wins).
  const nodeArgs = [...productionNodeArgs(options.repoRoot), ...(options.nodeArgs ?? [])];
  const port = await freePort();
  return startChild(
    {
      name: 'collector',
      script: join(
        options.repoRoot,
        options.source ? 'services/collector/src/main.ts' : 'services/collector/dist/main.mjs',
      ),
      cwd: options.repoRoot,
      port,
      nodeArgs,
      env: { PORT: String(port), HOST: '127.0.0.1', INGEST_RATE_LIMIT: '0', LOG_LEVEL: 'warn', ...options.env },
    },
    options.readyTimeoutMs,
  );
}

/**
 * The node flags of `pnpm start` (the root package.json's start script, its last command), e.g. the heap size: tools
 * run the collector with the same flags, so their figures are those of production. One place says what they are.
 */
export function productionNodeArgs(repoRoot: string): string[] {
  const start =
    (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts?: { start?: string } }).scripts
      ?.start ?? '';
  const command = (start.split('&&').at(-1) ?? '').trim().split(/\s+/);
  if (command[0] !== 'node') return [];
  return command.slice(1).filter((word) => word.startsWith('--'));
}

/** The production bundle, built as `pnpm start` builds it (a no-op when it is fresh); several tools at once are safe. */
export function ensureCollectorBuilt(repoRoot: string): void {
  execFileSync(process.execPath, [join(repoRoot, 'services/collector/scripts/ensure-built.mjs')], {
    cwd: repoRoot,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}
