// Source maps end to end, the way a JavaScript team runs them, with real tools only: the fixture app
// (fixtures/sourcemap-app) bundled and minified by esbuild, debug IDs injected and the maps uploaded by sentry-cli 3.8
// with an org token of scope releases, @sentry/browser 11 throwing from the minified bundle in Chromium, then a second
// build (one unrelated function more, so the minified names change) throwing the same error. The issue must show the
// original function, file, line and source line, and the second build's event must join the first one's issue.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esbuild } from './esbuild';
import { backend, createApp, launchDashboardBrowser, signUp, startTestServer } from './harness';

/**
 * Whether the collector has Sentry's upload API and symbolication (branches i22-uploads and i22-symbolicate). While
 * false, `sourcemaps upload` is expected to fail and the events to stay minified: everything else is still checked.
 * The lead flips it to true once both are merged; nothing else in this file changes.
 */
const UPLOAD_API = true;

const run = promisify(execFile);
const server = await startTestServer();
const base = server.url.replace('localhost', '127.0.0.1');
const fixture = fileURLToPath(new URL('./fixtures/sourcemap-app/', import.meta.url));
// sentry-cli 3.8's own binary (the npm alias sentry-cli-3); node_modules/.bin/sentry-cli could be either version.
const require = createRequire(import.meta.url);
const cli = require.resolve('sentry-cli-3/bin/sentry-cli');
/** The line of cart.js that throws (1-based) and its text, as the mapped frame's line and context_line must be. */
const cartSource = readFileSync(join(fixture, 'cart.js'), 'utf8').split('\n');
const throwingLineNumber = cartSource.findIndex((line) => line.includes("throw new Error('cart not loaded')")) + 1;
const throwingLine = cartSource[throwingLineNumber - 1] as string;

let browser: Browser;
const work = mkdtempSync(join(tmpdir(), 'collector-sourcemaps-'));
beforeAll(async () => {
  browser = await launchDashboardBrowser();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  rmSync(work, { recursive: true, force: true });
});

/** One build of the app into `dir` (assets/app.min.js and its map); `second` ships the unrelated function too. */
async function buildApp(dir: string, release: string, second: boolean) {
  const outfile = join(dir, 'assets', 'app.min.js');
  await esbuild([
    join(fixture, 'app.js'),
    '--bundle',
    '--minify',
    '--sourcemap',
    '--sources-content=true',
    '--format=iife',
    '--target=es2020',
    `--outfile=${outfile}`,
    `--define:__RELEASE__=${JSON.stringify(release)}`,
    `--define:__SECOND_BUILD__=${second}`,
  ]);
  return outfile;
}

/** renderCart's name in a minified bundle: the function that throws "cart not loaded". */
function minifiedName(script: string): string {
  const name = /function ([\w$]+)\([\w$]*\)\{[^}]*?throw new Error\("cart not loaded"\)/.exec(script)?.[1];
  if (!name) throw new Error('renderCart not found in the bundle');
  return name;
}

/** sentry-cli 3.8 with nothing but the org token: no SENTRY_URL, org or config file (the token names both). */
function sentryCli(token: string, args: string[]) {
  const env = { PATH: process.env.PATH ?? '', HOME: '/nonexistent', SENTRY_AUTH_TOKEN: token };
  return run(cli, args, { env, timeout: 30_000 }).then(
    (done) => ({ ok: true, output: done.stdout + done.stderr }),
    (error: { stdout?: string; stderr?: string; message: string }) => ({
      ok: false,
      output: `${error.stdout ?? ''}${error.stderr ?? error.message}`,
    }),
  );
}

/** Serves a build's folder as a static site on an origin of its own, the page loading /assets/app.min.js. */
async function serve(dir: string, dsn: string) {
  const page = `<!doctype html><html><head><title>shop</title></head><body><button id="checkout">Check out</button><script>window.SENTRY_DSN = ${JSON.stringify(dsn)};</script><script src="/assets/app.min.js"></script></body></html>`;
  const site = createServer((req, res) => {
    const path = req.url?.split('?')[0];
    if (path === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(page);
    if (path === '/assets/app.min.js' || path === '/assets/app.min.js.map') {
      const type = path.endsWith('.map') ? 'application/json' : 'text/javascript';
      return res.writeHead(200, { 'content-type': type }).end(readFileSync(join(dir, path)));
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  return { origin, close: () => new Promise<void>((resolve) => site.close(() => resolve())) };
}

/** Opens the build's page in Chromium, clicks Check out (renderCart throws) and waits for the SDK to send it. */
async function throwInBrowser(origin: string): Promise<string[]> {
  const tab = await browser.newPage();
  const pageErrors: string[] = [];
  tab.on('pageerror', (error) => pageErrors.push(error.message));
  try {
    await tab.goto(`${origin}/`);
    await tab.click('#checkout');
    // The error is thrown from a timer: give it its turn before flushing what the SDK captured.
    await tab.waitForTimeout(300);
    await tab.evaluate(() => (globalThis as unknown as { flushSentry(): Promise<boolean> }).flushSentry());
  } finally {
    await tab.close();
  }
  return pageErrors;
}

interface Issue {
  id: string;
  eventCount: number;
}

/** The app's issues once `events` events are stored (ingestion commits in groups, so it is polled briefly). */
async function issuesOnceStored(appKey: string, token: string, events: number): Promise<Issue[]> {
  for (let tries = 0; ; tries++) {
    const reply = await server.call('GET', `/api/issues?appKey=${appKey}`, { token });
    const issues = reply.body.issues as Issue[];
    if (issues.reduce((sum, issue) => sum + issue.eventCount, 0) >= events) return issues;
    if (tries > 100) throw new Error(`${events} events never arrived: ${JSON.stringify(reply.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Frame {
  function?: string;
  file?: string;
  absPath?: string;
  line?: number;
  column?: number;
  contextLine?: string;
  inApp?: boolean;
  raw?: { function?: string; file?: string; line?: number; column?: number };
}

/** The issue's latest event, as GET /api/issues/:id returns it. */
async function latestEvent(issueId: string, token: string) {
  const reply = await server.call('GET', `/api/issues/${encodeURIComponent(issueId)}`, { token });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.events[0] as {
    release?: string;
    exceptions?: { type?: string; value?: string; frames: Frame[] }[];
    debugImages?: { codeFile: string; debugId: string }[];
    symbolication?: { state: string; detail?: string };
  };
}

describe(`source maps end to end: esbuild, sentry-cli 3.8, @sentry/browser in Chromium (${backend})`, () => {
  it('maps the minified stack to the original code, and a rebuild stays the same issue', async () => {
    expect(throwingLine).toContain('throw');
    const owner = await signUp(server);
    const app = await createApp(server, owner.token, { name: 'Shop', type: 'web' });
    const created = await server.call('POST', '/api/tokens', {
      token: owner.token,
      body: { name: 'ci', scopes: ['releases'], org: app.org },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const orgToken = created.body.token.value as string;
    expect(orgToken).toMatch(/^sntrys_/);

    // Two builds; the second's one unrelated function renames renderCart in the minified output.
    const builds = [
      { release: 'shop@1.0.0', dir: join(work, 'build-1') },
      { release: 'shop@1.1.0', dir: join(work, 'build-2') },
    ];
    const scripts = await Promise.all(builds.map((each, index) => buildApp(each.dir, each.release, index === 1)));
    const names = scripts.map((script) => minifiedName(readFileSync(script, 'utf8')));
    expect(names[0]).not.toBe(names[1]);
    expect(names).not.toContain('renderCart');

    let firstIssue: string | undefined;
    for (const [index, { release, dir }] of builds.entries()) {
      const script = scripts[index] as string;
      // inject: a debug ID in the bundle (comment and runtime snippet) and the same one in its map.
      const injected = await sentryCli(orgToken, ['sourcemaps', 'inject', dir]);
      expect(injected.ok, injected.output).toBe(true);
      const bundleText = readFileSync(script, 'utf8');
      const debugId = /\/\/# debugId=([0-9a-f-]{36})\s*$/.exec(bundleText)?.[1] as string;
      expect(debugId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(JSON.parse(readFileSync(`${script}.map`, 'utf8')).debugId).toBe(debugId);
      expect(bundleText).toContain(`_sentryDebugIds[n]="${debugId}"`);

      // upload: chunks, assemble, and --wait-for until the bundle is indexed, so the event below finds its map.
      const uploaded = await sentryCli(orgToken, [
        'sourcemaps',
        'upload',
        dir,
        '--release',
        release,
        '--project',
        app.slug,
        '--url-prefix',
        '~/',
        '--wait-for',
        '20',
      ]);
      // Until i22-uploads is merged the first request, GET .../chunk-upload/, answers 404 and sentry-cli exits 1.
      expect(uploaded.ok, uploaded.output).toBe(UPLOAD_API);
      if (!UPLOAD_API) expect(uploaded.output).toMatch(/404|not found/i);

      const site = await serve(dir, app.dsn);
      try {
        const pageErrors = await throwInBrowser(site.origin);
        expect(pageErrors).toEqual(['cart not loaded']);
        const issues = await issuesOnceStored(app.appKey, owner.token, index + 1);
        // The issue the latest event went to: a new one if the rebuild split it, else the first build's.
        const issue = issues.find((each) => each.id !== firstIssue) ?? issues[0];
        expect(issue).toBeDefined();
        const event = await latestEvent((issue as Issue).id, owner.token);
        expect(event.release).toBe(release);
        // The browser sent the bundle's debug ID (Sentry's debug_meta.images), for the bundle's URL.
        expect(event.debugImages).toContainEqual({ codeFile: `${site.origin}/assets/app.min.js`, debugId });
        const exception = event.exceptions?.at(-1);
        expect(exception).toMatchObject({ type: 'Error', value: 'cart not loaded' });
        const top = exception?.frames[0] as Frame;

        if (UPLOAD_API) {
          // Mapped at ingestion: the original function, file, line and the throwing source line; the raw frame kept.
          expect(event.symbolication?.state).toMatch(/^(mapped|partial)$/);
          expect(top.function).toBe('renderCart');
          expect(top.file).toMatch(/(^|\/)cart\.js$/);
          expect(top.line).toBe(throwingLineNumber);
          expect(top.contextLine).toBe(throwingLine);
          expect(top.raw).toMatchObject({ function: names[index], line: expect.any(Number) });
          expect(top.raw?.file).toContain('app.min.js');
          // The rebuild's event joins the first build's issue: grouping reads the mapped frames.
          if (index === 0) firstIssue = issue?.id;
          else {
            expect(issues.map((each) => each.id)).toEqual([firstIssue]);
            expect(issue?.eventCount).toBe(2);
          }
        } else {
          // No upload API yet: stored as the browser sent it, minified names and the bundle's URL.
          expect(top.function).toBe(names[index]);
          expect(top.file ?? top.absPath).toBe(`${site.origin}/assets/app.min.js`);
          expect(top.raw).toBeUndefined();
          if (index === 0) firstIssue = issue?.id;
        }
      } finally {
        await site.close();
      }
    }

    // The issue page shows the original function (the minified one while nothing maps it).
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    await context.addInitScript(`sessionStorage.setItem('collector.session', ${JSON.stringify(owner.token)})`);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${base}/issues/${encodeURIComponent(firstIssue as string)}`);
    const top = page.getByRole('region', { name: 'Stack trace' }).locator('.frame-function').first();
    await top.waitFor();
    expect(await top.textContent()).toBe(UPLOAD_API ? 'renderCart' : names[0]);
    if (UPLOAD_API) {
      await page.locator('mark').getByText(throwingLine.trim()).first().waitFor();
      await page.getByRole('button', { name: 'Minified' }).click();
      expect(await top.textContent()).toBe(names[1]);
    }
    await context.close();
  }, 60_000);
});
