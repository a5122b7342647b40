// A bundle that can move (issue #20): the collector built here, copied with its production dependencies to a folder
// elsewhere (scripts/deploy.mjs, what the Dockerfile runs) and started there with plain node, finds everything it
// loads in the copy: its packages, argon2's native addon, the PostgreSQL binaries, the browser SDK's sources, the
// dashboard. The Docker image is this copy on node:24-slim; CI builds no image, so this is what proves its layout.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitForExit } from '@collector/db';
import { afterAll, describe, expect, it } from 'vitest';
import { backend } from './harness';

const repository = fileURLToPath(new URL('../../..', import.meta.url)).replace(/\/$/, '');
const deployScript = fileURLToPath(new URL('../scripts/deploy.mjs', import.meta.url));
const builtDashboard = join(repository, 'services', 'dashboard', 'dist', 'index.html');

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** Lines of a process's memory map that name files of the checkout (Linux only: none elsewhere). */
const mappedFromCheckout = (pid: number) =>
  existsSync(`/proc/${pid}/maps`)
    ? readFileSync(`/proc/${pid}/maps`, 'utf8')
        .split('\n')
        .filter((line) => line.includes(`${repository}/`))
    : [];

// Once per CI run (it needs no TEST_DATABASE_URL): the embedded run, on each Node version CI runs it on.
describe.runIf(backend === 'embedded')('the collector copied out of the checkout (scripts/deploy.mjs)', () => {
  it('starts from the copy with plain node, serves from the copy, and stops on SIGTERM', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'collector-bundle-'));
    folders.push(folder);
    // mkdtemp makes it 700: as root the embedded server runs as the `postgres` account, which must reach its binaries
    // in the copy and its DATA_DIR.
    chmodSync(folder, 0o755);
    const target = join(folder, 'app');
    execFileSync(process.execPath, [deployScript, target], { cwd: repository, stdio: 'pipe', timeout: 120_000 });
    const copy = join(target, 'collector');

    // The copy: the bundle naming no path of the checkout, its production dependencies, no sources.
    const dist = readdirSync(join(copy, 'dist'));
    expect(dist).toContain('main.mjs');
    for (const file of dist) expect(readFileSync(join(copy, 'dist', file), 'utf8')).not.toContain(repository);
    expect(existsSync(join(copy, 'src'))).toBe(false);
    expect(existsSync(join(copy, 'node_modules', '@node-rs', 'argon2'))).toBe(true);
    expect(existsSync(join(copy, 'node_modules', 'vitest'))).toBe(false);
    // The dashboard goes along when it is built; this test then serves a page of its own from the copy's place for it,
    // so that what it checks does not depend on whether this checkout built the dashboard.
    if (existsSync(builtDashboard)) {
      expect(readFileSync(join(target, 'dashboard', 'dist', 'index.html'), 'utf8')).toBe(
        readFileSync(builtDashboard, 'utf8'),
      );
    }
    rmSync(join(target, 'dashboard'), { recursive: true, force: true });
    mkdirSync(join(target, 'dashboard', 'dist'), { recursive: true });
    const page = `<!doctype html><title>dashboard of the copy ${Date.now()}</title>`;
    writeFileSync(join(target, 'dashboard', 'dist', 'index.html'), page);

    // Started in the copy with no environment of the checkout (no NODE_OPTIONS, no NODE_PATH, no pnpm).
    const dataDir = join(folder, 'data');
    const child: ChildProcess = spawn(process.execPath, ['dist/main.mjs'], {
      cwd: copy,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: string[] = [];
    const exit = once(child, 'exit');
    try {
      const listening = new Promise<string>((resolve, reject) => {
        const onData = (chunk: Buffer) => {
          output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
          const url = output.map((line) => /listening on (http:\/\/[^\s"]+)/.exec(line)?.[1]).find(Boolean);
          if (url) resolve(url);
        };
        child.stdout?.on('data', onData);
        child.stderr?.on('data', onData);
        void exit.then(() => reject(new Error(`the copy exited before listening:\n${output.join('\n')}`)));
        setTimeout(() => reject(new Error(`the copy did not listen within 60 s:\n${output.join('\n')}`)), 60_000);
      });
      const url = await listening;

      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ready', database: 'embedded' });
      // The browser SDK, built at start by esbuild (the copy's) from @collector/sdk-browser's sources (the copy's).
      const sdk = await fetch(`${url}/sdk/collector.min.js`);
      expect(sdk.status).toBe(200);
      expect(await sdk.text()).toContain('Collector');
      // The dashboard from ../dashboard/dist beside the copy, not the checkout's.
      const dashboard = await fetch(`${url}/`, { headers: { accept: 'text/html' } });
      expect(await dashboard.text()).toBe(page);

      // Nothing loaded from the checkout: argon2's addon and the PostgreSQL server are the copy's files.
      const pid = child.pid as number;
      expect(mappedFromCheckout(pid)).toEqual([]);
      const postmaster = Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
      if (existsSync(`/proc/${postmaster}/exe`)) {
        const inCopy = `${copy}/node_modules/`;
        expect(readlinkSync(`/proc/${postmaster}/exe`).slice(0, inCopy.length)).toBe(inCopy);
        expect(mappedFromCheckout(postmaster)).toEqual([]);
      }

      child.kill('SIGTERM');
      expect(await exit).toEqual([0, null]);
      expect(await waitForExit(postmaster, 5_000)).toBe(true);
      expect(output.filter((line) => /"level":(40|50|60)\b/.test(line))).toEqual([]);
    } finally {
      child.kill('SIGKILL');
    }
  }, 120_000);
});
