// The browser SDK end to end: the IIFE built here, loaded by the README's snippet into a page in headless Chromium,
// against the real collector; then the dashboard API says what arrived.
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { computeFingerprint } from '@collector/domain';
import { buildSdk } from '@collector/sdk-browser/build';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './chromium';
import { createApp, readmeBlock, signUp, startTestServer } from './harness';

const sdkPackage = JSON.parse(
  readFileSync(new URL('../../../packages/sdk-browser/package.json', import.meta.url), 'utf8'),
) as { version: string };

/**
 * The README's snippet with this run's appKey and collector address in place of its placeholders, and nothing else
 * changed: the script comes from the collector (/sdk/collector.min.js) and the events go to it.
 */
function snippetFor(appKey: string, endpoint: string): string {
  const snippet = readmeBlock('Browser SDK', 'html');
  expect(snippet.trimEnd().split('\n').length).toBeLessThanOrEqual(3);
  expect(snippet.split('YOUR_APP_KEY')).toHaveLength(2);
  expect(snippet.split('http://localhost:3100')).toHaveLength(3);
  return snippet.replace('YOUR_APP_KEY', appKey).replaceAll('http://localhost:3100', endpoint);
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function closedPort(): Promise<number> {
  const probe = createServer();
  const url = await listen(probe);
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return Number(new URL(url).port);
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

// The page's own code: named functions in a file of its own, so stacks have real frames to assert on.
const APP_JS = `
function renderCart(cart) {
  return cart.items.length;
}
document.getElementById('checkout').addEventListener('click', function onCheckout() {
  console.warn('cart is empty');
  renderCart(undefined);
});
document.getElementById('pay').addEventListener('click', function onPay() {
  history.pushState({}, '', '/pay');
  Promise.reject(new Error('payment declined'));
});
document.getElementById('load').addEventListener('click', function onLoad() {
  fetch('/api/cart').then(function (response) { window.cartStatus = response.status; });
  fetch(window.STOCK_URL).catch(function () { window.stockFailed = true; });
  var xhr = new XMLHttpRequest();
  xhr.open('GET', '/api/cart?via=xhr');
  xhr.onloadend = function () { window.xhrStatus = xhr.status; };
  xhr.send();
});
`;

interface Delivery {
  /** 'no-cors' for navigator.sendBeacon, 'cors' for fetch. */
  mode: string | undefined;
  contentType: string | undefined;
  eventIds: string[];
  status?: number;
  answer?: { accepted: number; duplicates: number; rejected: unknown[] };
}

/**
 * Stands between the page and the collector, recording each delivery and how it was sent. While `hold` is on, it
 * keeps fetch deliveries waiting (the SDK then has one request out and queues the rest), so the test can make sure
 * some events are left for the unload beacon.
 */
function startProxy(collectorUrl: string) {
  const deliveries: Delivery[] = [];
  const held: Array<() => void> = [];
  const inFlight = new Set<Promise<void>>();
  let hold = true;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const done = (async () => {
      const body = await readBody(req);
      const delivery: Delivery = {
        mode: req.headers['sec-fetch-mode'] as string | undefined,
        contentType: req.headers['content-type'],
        eventIds: [],
      };
      if (req.method === 'POST') {
        delivery.eventIds = (JSON.parse(body) as { events: Array<{ eventId: string }> }).events.map(
          (event) => event.eventId,
        );
        deliveries.push(delivery);
        if (hold && delivery.mode === 'cors') await new Promise<void>((resolve) => held.push(resolve));
      }
      const answer = await fetch(`${collectorUrl}${req.url}`, {
        method: req.method,
        headers: { 'content-type': req.headers['content-type'] ?? 'text/plain', origin: req.headers.origin ?? '' },
        body: req.method === 'POST' ? body : undefined,
      });
      const text = await answer.text();
      delivery.status = answer.status;
      if (answer.ok && req.method === 'POST') delivery.answer = JSON.parse(text);
      const headers = Object.fromEntries(
        [...answer.headers].filter(
          ([name]) => !['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(name),
        ),
      );
      // The page may be gone by now (a held request answered after close): nothing to write to then.
      if (!res.destroyed) res.writeHead(answer.status, headers).end(text);
    })().catch(() => {
      if (!res.headersSent && !res.destroyed) res.writeHead(502).end();
    });
    inFlight.add(done);
    void done.finally(() => inFlight.delete(done));
  });
  return {
    server,
    deliveries,
    heldCount: () => held.length,
    release: async () => {
      hold = false;
      for (const resolve of held.splice(0)) resolve();
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const server = await startTestServer();
let browser: Browser;
let bundle: string;
let outdir: string;
const servers: Server[] = [];

beforeAll(async () => {
  outdir = await mkdtemp(path.join(tmpdir(), 'collector-sdk-'));
  // Built here, into a folder of this run's own, so the test always runs the current source.
  const built = await buildSdk({ outdir });
  bundle = await readFile(built.iife.path, 'utf8');
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all(servers.map((open) => new Promise((resolve) => open.close(resolve))));
  if (outdir) await rm(outdir, { recursive: true, force: true });
});

type Route = string | ((origin: string) => string);

/**
 * A page server on 127.0.0.1: the routes given (HTML for '/', JavaScript for *.js), the bundle at /collector.min.js,
 * /api/cart failing with 500 and /api/ok answering 200; anything else is a 404 (a broken image, say).
 */
async function servePage(routes: Record<string, Route>): Promise<string> {
  let origin = '';
  const pageServer = createServer((req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://page');
    const route = routes[pathname];
    if (route !== undefined) {
      const type = pathname.endsWith('.js') ? 'text/javascript' : 'text/html; charset=utf-8';
      res.writeHead(200, { 'content-type': type }).end(typeof route === 'function' ? route(origin) : route);
    } else if (pathname === '/collector.min.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
    } else if (pathname === '/api/cart') {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"cart service down"}');
    } else if (pathname === '/api/ok') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    } else {
      res.writeHead(404).end();
    }
  });
  servers.push(pageServer);
  origin = await listen(pageServer);
  return origin;
}

describe('browser SDK in Chromium', () => {
  it('reports errors, rejections and failed requests once each, with breadcrumbs, and flushes by beacon on close', async () => {
    const { token } = await signUp(server);
    const app = await createApp(server, token, { name: 'Shop', type: 'web' });
    const proxy = startProxy(server.url.replace('localhost', '127.0.0.1'));
    servers.push(proxy.server);
    const endpoint = await listen(proxy.server);
    const stockUrl = `http://127.0.0.1:${await closedPort()}/api/stock`;

    const origin = await servePage({
      '/': (base) => `<!doctype html>
<html><head><meta charset="utf-8"><title>Shop</title>
${snippetFor(app.appKey, endpoint)}<script>window.STOCK_URL = ${JSON.stringify(stockUrl)};</script>
</head><body>
<div class="cart"><button id="checkout" class="primary big">Checkout</button><button id="pay">Pay</button><button id="load">Load</button></div>
<script src="${base}/app.js"></script>
</body></html>`,
      '/app.js': APP_JS,
    });

    const context = await browser.newContext();
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${origin}/`);
    expect(
      await page.evaluate(() => typeof (globalThis as unknown as { Collector?: { init?: unknown } }).Collector?.init),
    ).toBe('function');

    await page.click('#load');
    await page.waitForFunction(() => {
      const w = globalThis as unknown as { cartStatus?: number; stockFailed?: boolean; xhrStatus?: number };
      return w.cartStatus === 500 && w.stockFailed === true && w.xhrStatus === 500;
    });
    await page.click('#pay');
    await page.click('#checkout');
    // The interval flush sends the first batch; the proxy holds it, so the SDK has a request out and queues the rest.
    await until(() => proxy.heldCount() > 0, 20_000, 'the first batch');
    // Captured after the first batch left: only the unload beacon can deliver this one.
    await page.click('#checkout');
    await page.close({ runBeforeUnload: true });
    await until(() => proxy.deliveries.some((delivery) => delivery.mode === 'no-cors'), 10_000, 'the beacon');
    await proxy.release();
    await context.close();

    // The page saw its own errors as usual: the SDK swallowed nothing.
    expect(pageErrors).toEqual([
      'payment declined',
      "Cannot read properties of undefined (reading 'items')",
      "Cannot read properties of undefined (reading 'items')",
    ]);

    // Deliveries: every event went exactly once, a fetch first, then a beacon as text/plain, all accepted.
    const delivered = proxy.deliveries.flatMap((delivery) => delivery.eventIds);
    expect(delivered).toHaveLength(6);
    expect(new Set(delivered).size).toBe(6);
    const beacons = proxy.deliveries.filter((delivery) => delivery.mode === 'no-cors');
    expect(beacons.length).toBeGreaterThanOrEqual(1);
    for (const delivery of proxy.deliveries) {
      expect(delivery.contentType).toBe('text/plain;charset=UTF-8');
      expect(delivery.status).toBe(200);
      expect(delivery.answer).toEqual({ accepted: delivery.eventIds.length, duplicates: 0, rejected: [] });
    }

    const overview = await server.call('GET', `/api/overview?appKey=${app.appKey}`, { token });
    expect(overview.body.totals).toEqual({ events: 6, errors: 3, failedRequests: 3, affectedUsers: 1, issues: 4 });

    const list = await server.call('GET', `/api/issues?appKey=${app.appKey}&limit=100`, { token });
    expect(list.status).toBe(200);
    type Issue = {
      id: string;
      errorType: string;
      message: string;
      eventCount: number;
      userCount: number;
      fingerprint: string;
    };
    const issues = list.body.issues as Issue[];
    const summary = issues
      .map((issue) => [issue.errorType, issue.message, issue.eventCount])
      .sort((a, b) => String(a[1]).localeCompare(String(b[1])));
    expect(summary).toEqual(
      [
        ['TypeError', "Cannot read properties of undefined (reading 'items')", 2],
        ['request', `GET ${origin}/api/cart failed with 500`, 2],
        ['request', `GET ${stockUrl} failed`, 1],
        ['Error', 'payment declined', 1],
      ].sort((a, b) => String(a[1]).localeCompare(String(b[1]))),
    );

    // Stored events are asserted field by field; `any` keeps that readable.
    const eventsOf = async (issue: Issue): Promise<any[]> =>
      (await server.call('GET', `/api/issues/${encodeURIComponent(issue.id)}`, { token })).body.events;
    const byMessage = (text: string) => issues.find((issue) => issue.message.includes(text)) as Issue;
    const all = (await Promise.all(issues.map(eventsOf))).flat();
    expect(all.map((event) => event.eventId).sort()).toEqual([...delivered].sort());

    // Context on every event; the fingerprint the SDK sent is the one the server computes from the event.
    const [first] = all;
    expect(first.sessionId).toMatch(/^session_[0-9a-f]{32}$/);
    expect(first.anonymousId).toMatch(/^anon_[0-9a-f]{32}$/);
    for (const event of all) {
      expect(event).toMatchObject({
        platform: 'web',
        sdkVersion: sdkPackage.version,
        release: '1.0.0',
        sessionId: first.sessionId,
        anonymousId: first.anonymousId,
      });
      expect(event.userAgent).toContain('Chrome');
      expect(event.url.startsWith(`${origin}/`)).toBe(true);
      expect(event.fingerprint).toBe(
        computeFingerprint({
          errorType: event.errorType ?? event.type,
          message: event.message,
          stack: event.stack,
          request: event.request,
        }),
      );
    }

    // The uncaught TypeError, twice: real stack frames and the breadcrumbs that led to it.
    const typeErrors = await eventsOf(byMessage('reading'));
    expect(typeErrors).toHaveLength(2);
    for (const event of typeErrors) {
      expect(event.type).toBe('error');
      expect(event.stack).toMatch(/at renderCart \(http:\/\/127\.0\.0\.1:\d+\/app\.js:3:\d+\)/);
      expect(event.stack).toContain('onCheckout');
    }
    const firstTypeError = typeErrors.reduce((a, b) => (a.timestamp <= b.timestamp ? a : b));
    const crumbs = (
      firstTypeError.breadcrumbs as Array<{
        category: string;
        message: string;
        level: string;
        data?: Record<string, unknown>;
      }>
    ).map((crumb) => [crumb.category, crumb.level, crumb.message]);
    expect(crumbs[0]).toEqual(['ui.click', 'info', 'div.cart > button#load']);
    // The three requests run at once: their breadcrumbs come in the order the answers did.
    expect(crumbs.slice(1, 4).sort()).toEqual(
      [
        ['fetch', 'error', `GET ${stockUrl} (failed)`],
        ['xhr', 'error', `GET ${origin}/api/cart?via=xhr [500]`],
        ['fetch', 'error', `GET ${origin}/api/cart [500]`],
      ].sort(),
    );
    expect(crumbs.slice(4)).toEqual([
      ['ui.click', 'info', 'div.cart > button#pay'],
      ['navigation', 'info', `${origin}/pay`],
      ['ui.click', 'info', 'div.cart > button#checkout.primary.big'],
      ['console', 'warning', 'cart is empty'],
    ]);
    expect(firstTypeError.url).toBe(`${origin}/pay`);

    // The unhandled rejection keeps its Error's own type and stack.
    const [rejection] = await eventsOf(byMessage('payment declined'));
    expect(rejection).toMatchObject({ type: 'error', errorType: 'Error', message: 'payment declined' });
    expect(rejection.stack).toContain('onPay');

    // Failed requests: fetch and XHR to the same endpoint are one issue; the closed port is a network failure.
    const cartFailures = await eventsOf(byMessage('/api/cart'));
    expect(cartFailures.map((event) => event.request).sort((a, b) => a.url.localeCompare(b.url))).toEqual([
      { method: 'GET', url: `${origin}/api/cart`, status: 500, durationMs: expect.any(Number) },
      { method: 'GET', url: `${origin}/api/cart?via=xhr`, status: 500, durationMs: expect.any(Number) },
    ]);
    const [stock] = await eventsOf(byMessage('/api/stock'));
    expect(stock).toMatchObject({ type: 'request', request: { method: 'GET', url: stockUrl, status: 0 } });
    // Neither the fetch rejection the page caught nor the SDK's own sends became events.
    expect(all.some((event) => /Failed to fetch/.test(event.message ?? ''))).toBe(false);
    expect(all.some((event) => String(event.request?.url).startsWith(endpoint))).toBe(false);

    // The beacon carried the last TypeError, the one captured after the first batch had left.
    const lastTypeError = typeErrors.find((event) => event !== firstTypeError);
    expect(beacons.flatMap((delivery) => delivery.eventIds)).toContain(lastTypeError.eventId);
  }, 60_000);

  it('reports failed resource loads, sends a captured-then-rethrown error once, applies beforeSend, and flushes on demand', async () => {
    const { token } = await signUp(server);
    const app = await createApp(server, token);
    const endpoint = server.url.replace('localhost', '127.0.0.1');
    const origin = await servePage({
      '/': `<!doctype html><html><head><meta charset="utf-8">
<script src="/collector.min.js"></script>
<script>
Collector.init({
  appKey: ${JSON.stringify(app.appKey)}, endpoint: ${JSON.stringify(endpoint)}, environment: 'test', flushIntervalMs: 60000,
  beforeSend: function (event) {
    if (event.message === 'drop me') return null;
    if (event.message) event.message = event.message.replace(/[0-9]{4}-[0-9]{4}/, '[card]');
    return event;
  }
});
</script>
</head><body>
<img src="/missing/42.png">
<script src="/checkout.js"></script>
</body></html>`,
      '/checkout.js': `
function checkout() { throw new RangeError('card 1234-5678 declined'); }
window.run = function run() {
  try { checkout(); } catch (error) {
    window.sentId = Collector.captureException(error);
    setTimeout(function () { throw error; });
  }
  window.messageId = Collector.captureMessage('slow checkout');
  window.droppedId = Collector.captureMessage('drop me');
};`,
    });
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${origin}/`);
    await page.evaluate(() => (globalThis as unknown as { run(): void }).run());
    await until(() => pageErrors.length > 0, 5000, 'the rethrown error');
    const ids = await page.evaluate(() => {
      const w = globalThis as unknown as { sentId?: string; messageId?: string; droppedId?: string };
      return { sentId: w.sentId, messageId: w.messageId, droppedId: w.droppedId ?? null };
    });
    expect(ids.sentId).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(ids.droppedId).toBeNull();
    // The interval is a minute away: only flush() can have delivered these.
    expect(
      await page.evaluate(() =>
        (globalThis as unknown as { Collector: { flush(ms: number): Promise<boolean> } }).Collector.flush(5000),
      ),
    ).toBe(true);
    await page.close();
    expect(pageErrors).toEqual(['card 1234-5678 declined']);

    type Issue = { id: string; errorType: string; message: string; eventCount: number };
    const issues = (await server.call('GET', `/api/issues?appKey=${app.appKey}`, { token })).body.issues as Issue[];
    expect(issues.map((issue) => [issue.errorType, issue.message, issue.eventCount]).sort()).toEqual(
      [
        ['Message', 'slow checkout', 1],
        ['RangeError', 'card [card] declined', 1],
        ['ResourceError', `Failed to load img ${origin}/missing/42.png`, 1],
      ].sort(),
    );
    const range = issues.find((issue) => issue.errorType === 'RangeError');
    const detail = await server.call('GET', `/api/issues/${encodeURIComponent(range?.id ?? '')}`, { token });
    expect(detail.body.events.map((event: { eventId: string }) => event.eventId)).toEqual([ids.sentId]);
    expect(detail.body.events[0]).toMatchObject({ environment: 'test' });
    expect(detail.body.events[0].stack).toContain('at checkout (');
  }, 60_000);

  it('keeps the page working and retries gently while the collector is unreachable', async () => {
    const endpoint = `http://127.0.0.1:${await closedPort()}`;
    const origin = await servePage({
      '/': `<!doctype html><html><head><meta charset="utf-8">
<script src="/collector.min.js"></script>
<script>Collector.init({ appKey: 'web_unreachable', endpoint: ${JSON.stringify(endpoint)}, flushIntervalMs: 100 });</script>
</head><body><button id="boom">Boom</button>
<script>
document.getElementById('boom').addEventListener('click', function () {
  for (var i = 0; i < 10; i++) setTimeout(function () { throw new Error('boom'); });
});
</script></body></html>`,
    });
    const page = await browser.newPage();
    const sends: number[] = [];
    const started = Date.now();
    page.on('request', (request) => {
      if (request.url().startsWith(endpoint)) sends.push(Date.now() - started);
    });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${origin}/`);
    await page.click('#boom');
    await new Promise((resolve) => setTimeout(resolve, 3500));
    // First send after 100 ms, then backoff from 1 s doubling (with jitter): a handful, not a loop.
    expect(sends.length).toBeGreaterThanOrEqual(2);
    expect(sends.length).toBeLessThanOrEqual(5);
    // The page's own fetch still works, flush() reports failure without throwing, close() ends it all.
    const after = await page.evaluate(async () => {
      const collector = (
        globalThis as unknown as {
          Collector: { flush(ms: number): Promise<boolean>; close(ms: number): Promise<boolean> };
        }
      ).Collector;
      const status = (await fetch('/api/ok')).status;
      const flushed = await collector.flush(200);
      const closed = await collector.close(200);
      return { status, flushed, closed };
    });
    expect(after).toEqual({ status: 200, flushed: false, closed: false });
    expect(pageErrors).toEqual(Array.from({ length: 10 }, () => 'boom'));
    const sendsAtClose = sends.length;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(sends.length).toBe(sendsAtClose);
    await page.close();
  }, 60_000);
});
