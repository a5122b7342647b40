// The embedded default as a user meets it: `pnpm start` with no DATABASE_URL runs a PostgreSQL server of its own in
// DATA_DIR, keeps the data across restarts, and leaves no `postgres` running however the collector ends: SIGTERM,
// SIGINT, SIGKILL (the guard stops it), or SIGKILL of the collector and its guard (the next start stops it).
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { isAlive, waitForExit } from '@collector/db';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger';
import { startServer } from '../src/server';
import { backend, makeEvent, PASSWORD, type ServiceProcess, startService, uniqueEmail } from './harness';

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});
const newDataDir = () => {
  const folder = mkdtempSync(join(tmpdir(), 'collector-embedded-'));
  // mkdtemp makes it 700: open it to the accounts the server (as root) or the collector (the ordinary-user case) runs
  // as.
  chmodSync(folder, 0o755);
  folders.push(folder);
  return join(folder, 'data');
};

const postmasterPid = (dataDir: string) =>
  Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
/** Every process of the embedded server (postmaster and its children) of this folder. */
const serverProcesses = (dataDir: string) => {
  try {
    return execFileSync('pgrep', ['-f', `postgres -D ${join(dataDir, 'postgres')}`], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean);
  } catch {
    return [];
  }
};

async function post(service: ServiceProcess, path: string, body: unknown, token?: string) {
  const response = await fetch(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

// Once per CI run: none of this depends on TEST_DATABASE_URL, so the PostgreSQL run skips it.
describe.runIf(backend === 'embedded')('the embedded PostgreSQL server (the default without DATABASE_URL)', () => {
  it('keeps data across restarts and stops its server on SIGTERM, SIGINT and SIGKILL of the collector', async () => {
    const dataDir = newDataDir();
    const email = uniqueEmail();

    // First start: creates the cluster, serves, and SIGTERM stops everything.
    let service = await startService({ DATA_DIR: dataDir });
    try {
      const ready = await fetch(`${service.url}/readyz`);
      expect(await ready.json()).toEqual({ status: 'ready', database: 'embedded' });
      const registered = await post(service, '/api/auth/register', { email, password: PASSWORD });
      expect(registered.status).toBe(201);
      const app = await post(service, '/api/apps', { name: 'Kept', type: 'web' }, registered.body.token);
      const sent = await post(service, '/api/events/batch', {
        appKey: app.body.app.appKey,
        events: [makeEvent(), makeEvent()],
      });
      expect(sent.body).toEqual({ accepted: 2, duplicates: 0, rejected: [] });
      // Requests at once, so the pool holds several idle connections when the server stops.
      await Promise.all(
        Array.from({ length: 12 }, () =>
          fetch(`${service.url}/api/overview`, { headers: { authorization: `Bearer ${registered.body.token}` } }),
        ),
      );
      const pid = postmasterPid(dataDir);
      // Its own port, never the system server's.
      expect(service.output.join('\n')).toMatch(/embedded PostgreSQL \(pid \d+\) on 127\.0\.0\.1:(?!5432\b)\d+/);
      service.child.kill('SIGTERM');
      expect(await service.exit).toEqual({ code: 0, signal: null });
      expect(await waitForExit(pid, 5_000)).toBe(true);
      expect(serverProcesses(dataDir)).toEqual([]);
      expect(existsSync(join(dataDir, 'collector.pid'))).toBe(false);
      // A clean stop says nothing worse than info (its idle connections ending as its server stops are no news).
      expect(service.output.filter((line) => /"level":(40|50|60)\b/.test(line))).toEqual([]);
    } finally {
      service.child.kill('SIGKILL');
    }

    // Second start on the same folder: the account and its events are there; SIGINT (Ctrl-C) stops everything.
    service = await startService({ DATA_DIR: dataDir });
    try {
      const login = await post(service, '/api/auth/login', { email, password: PASSWORD });
      expect(login.status).toBe(200);
      const overview = await fetch(`${service.url}/api/overview`, {
        headers: { authorization: `Bearer ${login.body.token}` },
      });
      expect(((await overview.json()) as any).totals.events).toBe(2);
      const pid = postmasterPid(dataDir);
      service.child.kill('SIGINT');
      expect(await service.exit).toEqual({ code: 0, signal: null });
      expect(await waitForExit(pid, 5_000)).toBe(true);
    } finally {
      service.child.kill('SIGKILL');
    }

    // A crash: SIGKILL gives the collector no chance to stop anything; its guard stops the server.
    service = await startService({ DATA_DIR: dataDir });
    const crashedPid = postmasterPid(dataDir);
    service.child.kill('SIGKILL');
    await service.exit;
    expect(await waitForExit(crashedPid, 10_000)).toBe(true);
    expect(serverProcesses(dataDir)).toEqual([]);

    // A crash that takes the guard too (kill -9 of the whole group, say): the next start stops the server left
    // behind, then starts its own.
    service = await startService({ DATA_DIR: dataDir });
    const leftPid = postmasterPid(dataDir);
    const guard = execFileSync('pgrep', ['-f', `collector-postgres-guard ${leftPid}`], { encoding: 'utf8' }).trim();
    service.child.kill('SIGKILL');
    process.kill(Number(guard), 'SIGKILL');
    await service.exit;
    expect(isAlive(leftPid)).toBe(true);
    service = await startService({ DATA_DIR: dataDir });
    try {
      expect(service.output.join('\n')).toContain(
        `stopping the embedded PostgreSQL server (pid ${leftPid}) left running`,
      );
      expect(isAlive(leftPid)).toBe(false);
      expect((await post(service, '/api/auth/login', { email, password: PASSWORD })).status).toBe(200);
    } finally {
      service.child.kill('SIGTERM');
      await service.exit;
    }
    expect(serverProcesses(dataDir)).toEqual([]);
  }, 180_000);

  it('refuses a folder another collector is using, and a folder PGlite made, with what to do', async () => {
    const dataDir = newDataDir();
    const first = await startService({ DATA_DIR: dataDir });
    try {
      const second = await startService({ DATA_DIR: dataDir }, { waitForListening: false });
      expect((await second.exit).code).toBe(1);
      expect(second.output.join('\n')).toContain(`is in use by another collector (pid ${first.child.pid})`);
      // The first is untouched.
      expect((await fetch(`${first.url}/readyz`)).status).toBe(200);
    } finally {
      first.child.kill('SIGTERM');
      await first.exit;
    }

    const pgliteDir = newDataDir();
    mkdirSync(pgliteDir, { recursive: true });
    writeFileSync(join(pgliteDir, 'PG_VERSION'), '18\n');
    const refused = await startService({ DATA_DIR: pgliteDir }, { waitForListening: false });
    expect((await refused.exit).code).toBe(1);
    expect(refused.output.join('\n')).toMatch(/holds a database made by PGlite.*EMBEDDED=pglite/);
  }, 120_000);

  it.runIf(userInfo().uid === 0)(
    'runs for an ordinary user as well as for root',
    async () => {
      // As root the server runs as the "postgres" account (the other tests); here the collector itself is an
      // ordinary user, and so is its server.
      const nobody = {
        uid: Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' })),
        gid: Number(execFileSync('id', ['-g', 'nobody'], { encoding: 'utf8' })),
      };
      const dataDir = newDataDir();
      mkdirSync(dataDir, { recursive: true });
      chownSync(dataDir, nobody.uid, nobody.gid);
      const service = await startService({ DATA_DIR: dataDir, HOME: dataDir }, { account: nobody });
      try {
        expect((await post(service, '/api/auth/register', { email: uniqueEmail(), password: PASSWORD })).status).toBe(
          201,
        );
        const owner = execFileSync('ps', ['-o', 'uid=', '-p', String(postmasterPid(dataDir))], {
          encoding: 'utf8',
        }).trim();
        expect(Number(owner)).toBe(nobody.uid);
      } finally {
        service.child.kill('SIGTERM');
        await service.exit;
      }
      expect(serverProcesses(dataDir)).toEqual([]);
    },
    120_000,
  );
});

describe.runIf(backend === 'embedded')('EMBEDDED=pglite, the earlier default', () => {
  it('serves on PGlite and says so', async () => {
    const server = await startServer({
      port: 0,
      host: '127.0.0.1',
      embedded: 'pglite',
      dataDir: 'memory://',
      logger: createLogger('silent'),
    });
    afterAll(() => server.stop());
    const ready = await fetch(`${server.url.replace('localhost', '127.0.0.1')}/readyz`);
    expect(await ready.json()).toEqual({ status: 'ready', database: 'pglite' });
  }, 60_000);
});
