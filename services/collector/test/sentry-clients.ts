// Real Sentry SDKs, unmodified, pointed at a DSN: @sentry/node in a child process, Debian's python3-sentry-sdk, Debian's
// sentry-go (built here) and sentry-ruby, and @sentry/browser bundled by esbuild and run in Debian's Chromium from a page
// on its own origin. Used to capture the fixtures (fixtures/sentry/capture.ts) and to drive the real service in
// sentry.clients.test.ts and sentry.event-data*.test.ts.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { launchChromium } from './chromium';
import { esbuild } from './esbuild';

const run = promisify(execFile);
const here = (file: string) => fileURLToPath(new URL(`./sentry-clients/${file}`, import.meta.url));

/** Runs @sentry/node 11 (node-client.mjs): four events, the last over 32 KiB so the SDK gzips it. */
export async function runNodeClient(dsn: string): Promise<void> {
  await run(process.execPath, [here('node-client.mjs'), dsn], { timeout: 30_000 });
}

/**
 * Runs @sentry/node 11 (node-feedback-client.mjs): an error, the user's feedback about it, and a dropped message's
 * client report. Resolves to the error's Sentry event_id.
 */
export async function runNodeFeedbackClient(dsn: string): Promise<string> {
  const { stdout } = await run(process.execPath, [here('node-feedback-client.mjs'), dsn], { timeout: 30_000 });
  return stdout.trim();
}

/** Runs Debian's python3-sentry-sdk 1.9.10 (python-client.py): an exception and a message, to /store/. */
export async function runPythonClient(dsn: string): Promise<void> {
  await run('/usr/bin/python3', [here('python-client.py'), dsn], { timeout: 30_000 });
}

/**
 * The checkout scenario, the same in every SDK (sentry.event-data.test.ts): a request handler reports "Checkout failed"
 * caused by a card network error, with tags, a user, an `order` context, extra, and the request with an Authorization
 * header, a cookie and a body holding a password. @sentry/node 11 serves the request itself (node-rich.mjs).
 */
export async function runNodeCheckout(dsn: string): Promise<void> {
  await run(process.execPath, [here('node-rich.mjs'), dsn], { timeout: 30_000 });
}

/** The checkout scenario through python3-sentry-sdk 1.9.10's WSGI middleware (python-rich.py). */
export async function runPythonCheckout(dsn: string): Promise<void> {
  await run('/usr/bin/python3', [here('python-rich.py'), dsn], { timeout: 30_000 });
}

/** Debian's Go compiler and sentry-go 0.11 sources (golang-go, golang-github-getsentry-sentry-go-dev). */
const GO = '/usr/bin/go';
const GOPATH = '/usr/share/gocode';
const RUBY = '/usr/bin/ruby';

/**
 * The Go compiler when it is missing (the test then skips, saying so), else undefined. Only the compiler: with it
 * present, missing sentry-go sources fail the build loudly rather than skip.
 */
export function goClientMissing(): string | undefined {
  return existsSync(GO) ? undefined : `${GO} (apt-get install golang-go golang-github-getsentry-sentry-go-dev)`;
}

/** The Ruby interpreter when it is missing, else undefined; as for Go, a missing gem fails rather than skips. */
export function rubyClientMissing(): string | undefined {
  return existsSync(RUBY) ? undefined : `${RUBY} (apt-get install ruby ruby-sentry-ruby ruby-rack)`;
}

let goBinary: Promise<string> | undefined;

/**
 * go-client/main.go built once per test run, into a temporary folder: offline, from Debian's GOPATH (GO111MODULE=off,
 * so no module proxy is asked), with Go's own build cache making later runs take about a second.
 */
function buildGoClient(): Promise<string> {
  goBinary ??= (async () => {
    const output = join(mkdtempSync(join(tmpdir(), 'collector-go-client-')), 'go-client');
    await run(GO, ['build', '-o', output, '.'], {
      cwd: here('go-client'),
      timeout: 180_000,
      env: { ...process.env, GO111MODULE: 'off', GOPATH, GOFLAGS: '' },
    });
    return output;
  })();
  return goBinary;
}

/** The checkout scenario through sentry-go 0.11's net/http integration (go-client/main.go). */
export async function runGoCheckout(dsn: string): Promise<void> {
  await run(await buildGoClient(), [dsn], { timeout: 30_000 });
}

/** The checkout scenario through sentry-ruby 5.3's Rack middleware (ruby-client.rb); it needs ruby-rack too. */
export async function runRubyCheckout(dsn: string): Promise<void> {
  await run(RUBY, [here('ruby-client.rb'), dsn], { timeout: 30_000 });
}

const browserScenarios = ['uncaught', 'rejection', 'message', 'fetch', 'checkout'] as const;
export type BrowserScenario = (typeof browserScenarios)[number];
/** What the fixtures and sentry.clients.test.ts send; `checkout` is the event-data scenario's, run on its own. */
const defaultBrowserScenarios: readonly BrowserScenario[] = ['uncaught', 'rejection', 'message', 'fetch'];

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * Serves a page on an origin of its own (so requests to the DSN's host are cross-origin and CORS is real), opens it in
 * Chromium, clicks each scenario's button and waits for the SDK to flush. `/api/stock` answers 500, which
 * httpClientIntegration reports.
 */
export async function runBrowserClient(
  dsn: string,
  scenarios: readonly BrowserScenario[] = defaultBrowserScenarios,
): Promise<{ pageErrors: string[] }> {
  const script = await esbuild([here('browser-client.mjs'), '--bundle', '--format=iife', '--target=es2020']);
  const buttons = browserScenarios.map((id) => `<button id="${id}">${id}</button>`).join('');
  const page = `<!doctype html><html><head><title>shop</title></head><body>${buttons}<script>window.SENTRY_DSN = ${JSON.stringify(dsn)};</script><script src="/assets/app.js"></script></body></html>`;
  const site = createServer((req, res) => {
    if (req.url === '/assets/app.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    if (req.url?.startsWith('/api/stock'))
      return res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"stock service down"}');
    if (req.url === '/' || req.url?.startsWith('/checkout'))
      return res.writeHead(200, { 'content-type': 'text/html' }).end(page);
    res.writeHead(404).end();
  });
  const origin = await listen(site);
  const browser = await launchChromium();
  try {
    const tab = await browser.newPage();
    const pageErrors: string[] = [];
    tab.on('pageerror', (error) => pageErrors.push(error.message));
    await tab.goto(`${origin}/checkout?step=2`);
    for (const scenario of scenarios) {
      await tab.click(`#${scenario}`);
      // Each report leaves before the next click, so captures keep the scenarios' order.
      await tab.waitForTimeout(300);
      await tab.evaluate(() => (globalThis as unknown as { flushSentry(): Promise<boolean> }).flushSentry());
    }
    return { pageErrors };
  } finally {
    await browser.close();
    await new Promise<void>((resolve) => site.close(() => resolve()));
  }
}
