// A throwaway PostgreSQL cluster in a temp folder, owned by this process: started, stopped, frozen and thawed at will.
// Only its own processes are ever signalled: the postmaster named in its postmaster.pid, and that postmaster's
// children.
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

export interface Cluster {
  root: string;
  port: number;
  /** A URL of one of its databases, over TCP on 127.0.0.1. */
  url(database: string): string;
  start(): Promise<void>;
  /** `pg_ctl stop -m fast`: connections are terminated, then a shutdown checkpoint. */
  stop(): Promise<void>;
  /** SIGSTOP to the postmaster and every process it started; returns how many were stopped. */
  freeze(): number;
  /** SIGCONT to exactly the processes `freeze` stopped. */
  thaw(): number;
  /** Ends every session on `database` except the caller's; returns how many. */
  terminate(database: string): Promise<number>;
  /** Stops it however it is (thawing first) and removes its folder. */
  destroy(): Promise<void>;
  /** The server log's last lines. */
  logTail(lines?: number): string;
}

// initdb and pg_ctl refuse to run as root: as root, run them as the postgres OS user.
const asRoot = process.getuid?.() === 0;

function run(command: string, args: string[], cwd: string): Promise<void> {
  const [file, argv] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', join(PG_BIN, command), ...args]]
    : [join(PG_BIN, command), args];
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${output}`)),
    );
  });
}

function childrenOf(parent: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

export async function createCluster(port: number): Promise<Cluster> {
  const root = mkdtempSync(join(tmpdir(), 'collector-faults-'));
  const data = join(root, 'data');
  const log = join(root, 'server.log');
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(root, uid, gid);
    writeFileSync(log, '');
    chownSync(log, uid, gid);
  }
  await run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-instructions'], root);
  // fsync stays on: a fault must not be survivable only because nothing was really written.
  await appendFile(
    join(data, 'postgresql.conf'),
    [
      '',
      '# collector faults',
      `port = ${port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${root}'`,
      'max_connections = 60',
      'shared_buffers = 128MB',
      "log_min_messages = 'warning'",
      '',
    ].join('\n'),
  );

  let frozen: number[] = [];
  const postmaster = (): number | undefined => {
    const file = join(data, 'postmaster.pid');
    if (!existsSync(file)) return undefined;
    const pid = Number(readFileSync(file, 'utf8').split('\n', 1)[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  };
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;

  const cluster: Cluster = {
    root,
    port,
    url,
    start: () => run('pg_ctl', ['-D', data, '-l', log, '-w', '-t', '60', 'start'], root),
    stop: () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop'], root),
    freeze() {
      const pid = postmaster();
      if (pid === undefined) throw new Error('no postmaster to freeze');
      // The postmaster first, so that it starts nothing new while its children are being stopped.
      process.kill(pid, 'SIGSTOP');
      frozen = [pid];
      for (const child of childrenOf(pid)) {
        try {
          process.kill(child, 'SIGSTOP');
          frozen.push(child);
        } catch {
          // exited meanwhile
        }
      }
      return frozen.length;
    },
    thaw() {
      const count = frozen.length;
      // Children first, the postmaster last: the reverse of freeze.
      for (const pid of frozen.reverse()) {
        try {
          process.kill(pid, 'SIGCONT');
        } catch {
          // exited meanwhile
        }
      }
      frozen = [];
      return count;
    },
    async terminate(database) {
      const admin = new pg.Client({ connectionString: url('postgres') });
      await admin.connect();
      try {
        const { rows } = await admin.query<{ n: string }>(
          'select count(*) filter (where pg_terminate_backend(pid))::text as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
          [database],
        );
        return Number(rows[0]?.n ?? 0);
      } finally {
        await admin.end();
      }
    },
    async destroy() {
      if (frozen.length > 0) cluster.thaw();
      if (postmaster() !== undefined) {
        await run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '30', 'stop'], root).catch((error: Error) => {
          console.error(`cluster: ${error.message}`);
        });
      }
      rmSync(root, { recursive: true, force: true });
    },
    logTail(lines = 20) {
      try {
        return readFileSync(log, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
      } catch {
        return '';
      }
    },
  };
  return cluster;
}
