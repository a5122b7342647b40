// Real Sentry SDKs, unmodified, pointed at a DSN: @sentry/node in a child process, Debian's python3-sentry-sdk, and
// @sentry/browser bundled by esbuild and run in Debian's Chromium from a page on its own origin. Used both to capture
// the fixtures (fixtures/sentry/capture.ts) and to drive the real service in sentry.clients.test.ts.
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { launchChromium } from './chromium';

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

const browserScenarios = ['uncaught', 'rejection', 'message', 'fetch'] as const;
export type BrowserScenario = (typeof browserScenarios)[number];

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
  scenarios: readonly BrowserScenario[] = browserScenarios,
): Promise<{ pageErrors: string[] }> {
  const bundle = await build({
    entryPoints: [here('browser-client.mjs')],
    bundle: true,
    format: 'iife',
    target: 'es2020',
    write: false,
    sourcemap: false,
  });
  const script = bundle.outputFiles[0]?.text ?? '';
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
