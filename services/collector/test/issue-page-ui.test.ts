// The issue page with Sentry's event data (issue #23) in a real browser (Debian chromium through playwright-core), at
// desktop and phone width: an issue whose events came through the store endpoint shows its tags, user, contexts,
// request, extra data, exception chain, unhandled badge, both times and the cut note; axe finds nothing on it; newer
// and older step between its events; a tag value lists the issues with it; and the list's rows have their sparkline.
import axe from 'axe-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dashboardArtifacts as artifacts,
  backend,
  createApp,
  launchDashboardBrowser,
  signUp,
  startTestServer,
} from './harness';
import { dsnParts } from './sentry-fixtures';

const server = await startTestServer();
const base = server.url.replace('localhost', '127.0.0.1');

let browser: Browser;
beforeAll(async () => {
  browser = await launchDashboardBrowser();
}, 180_000);
afterAll(() => browser?.close());

/** A Python-style crash as a Sentry SDK stores it: a cause and the exception raised, with every kind of event data. */
const sentryEvent = (overrides: Record<string, unknown> = {}) => ({
  event_id: crypto.randomUUID().replaceAll('-', ''),
  timestamp: (Date.now() - 60_000) / 1000,
  platform: 'node',
  level: 'error',
  exception: {
    values: [
      {
        type: 'DbError',
        value: 'connection reset',
        mechanism: { type: 'chained', handled: true },
        stacktrace: { frames: [{ function: 'query', filename: '/app/db.js', lineno: 9, in_app: true }] },
      },
      {
        type: 'CheckoutError',
        value: 'Checkout failed',
        mechanism: { type: 'onuncaughtexception', handled: false },
        stacktrace: {
          // Sentry's order, outermost first: the page shows the innermost first.
          frames: [
            { function: 'processTicksAndRejections', filename: 'node:internal/process/task_queues', lineno: 95 },
            {
              function: 'checkout',
              filename: '/app/cart.js',
              lineno: 3,
              colno: 7,
              in_app: true,
              pre_context: ['function checkout(cart) {', '  const total = sum(cart);'],
              context_line: '  throw new CheckoutError(total);',
              post_context: ['}'],
            },
          ],
        },
      },
    ],
  },
  tags: { plan: 'free plan', region: 'eu-west' },
  user: { id: 42, email: 'ada@example.com', username: 'ada', ip_address: '203.0.113.9' },
  contexts: {
    os: { name: 'Linux', version: '6.1.0' },
    runtime: { name: 'node', version: 'v20.11.1' },
    order: { id: 'ord_1', items: 3 },
  },
  extra: { cart: { items: 3, currency: 'EUR' }, attempt: 2 },
  request: {
    method: 'POST',
    url: 'https://shop.example/api/checkout?step=2',
    query_string: 'step=2',
    headers: { 'User-Agent': 'node', 'Content-Type': 'application/json' },
    data: { card: 'visa' },
  },
  server_name: 'web-1',
  logger: 'payments',
  transaction: 'POST /api/checkout',
  ...overrides,
});

async function storeEvent(dsn: string, event: Record<string, unknown>) {
  const { projectId, publicKey } = dsnParts(dsn);
  const reply = await server.call('POST', `/api/${projectId}/store/?sentry_key=${publicKey}`, { body: event });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
}

/** axe's violations on the page as it is now, one line each: the rule and the elements it found. */
async function violations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's CSP (script-src 'self') does not govern.
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(axe.source);
  return page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((result) =>
    result.violations.map((each) => each.id + ': ' + each.nodes.map((node) => node.target.join(' ')).join(', ')))`);
}

const widths = [
  { name: 'desktop', viewport: { width: 1280, height: 900 } },
  { name: 'phone', viewport: { width: 390, height: 844 } },
];

describe.each(widths)(`the issue page with Sentry's event data, $name (${backend})`, ({ name, viewport }) => {
  it('shows every panel, passes axe, steps between events, filters by a tag and draws the sparkline', async () => {
    const { token } = await signUp(server);
    const app = await createApp(server, token, { name: 'Checkout API', type: 'node' });
    // The older event's extra is over its 16 KiB: it is cut, and the page says so.
    const older = sentryEvent({
      timestamp: (Date.now() - 120_000) / 1000,
      tags: { plan: 'pro', region: 'eu-west' },
      extra: { blob: 'x'.repeat(20_000) },
    });
    const newer = sentryEvent();
    await storeEvent(app.dsn, older);
    await storeEvent(app.dsn, newer);
    // Another issue of the app without the plan tag: the tag's link leaves it out.
    await storeEvent(
      app.dsn,
      sentryEvent({ exception: { values: [{ type: 'TimeoutError', value: 'gave up' }] }, tags: { region: 'us' } }),
    );
    const { issues } = (await server.call('GET', `/api/issues?appKey=${app.appKey}`, { token })).body;
    const issue = issues.find((each: { errorType: string }) => each.errorType === 'CheckoutError');
    expect(issue).toMatchObject({ unhandled: true, eventCount: 2 });

    const context = await browser.newContext({ viewport, locale: 'en-US', timezoneId: 'UTC' });
    await context.addInitScript(`sessionStorage.setItem('collector.session', ${JSON.stringify(token)})`);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${base}/issues/${encodeURIComponent(issue.id)}`);
    await page.locator('table.events tbody tr').first().waitFor();

    // The header: level and the unhandled badge.
    const head = page.locator('.page-head');
    await head.getByText('Unhandled').waitFor();
    await head.locator('.level-error').waitFor();

    // Tags: each value a link, with its share.
    const tags = page.getByRole('region', { name: 'Tags' });
    await tags.getByRole('link', { name: 'free plan' }).waitFor();
    expect(await tags.getByRole('link', { name: 'pro', exact: true }).getAttribute('href')).toBe(
      `/issues?${new URLSearchParams({ app: app.appKey, q: 'plan:pro' })}`,
    );
    expect(await tags.textContent()).toContain('1 (50%)');
    await tags.getByRole('link', { name: 'Linux 6.1.0' }).waitFor();

    // The newest event: its exception chain, the raised one first, its cause beneath, context lines shown.
    const stack = page.getByRole('region', { name: 'Exceptions' });
    const headings = await stack.getByRole('heading', { level: 3 }).allTextContents();
    expect(headings).toEqual(['CheckoutErrorCheckout failed', 'DbErrorconnection reset']);
    await stack.getByText('Caused by', { exact: true }).waitFor();
    await stack.locator('mark').getByText('throw new CheckoutError(total);').waitFor();
    await stack.getByText('onuncaughtexception', { exact: true }).waitFor();
    expect(await stack.locator('.event-times .badge-unhandled').count()).toBe(1);
    expect(await stack.locator('.event-times').textContent()).toMatch(/happened .* received /);
    // The library frame is folded, and opens.
    const library = stack.getByText('1 library frame');
    await library.click();
    await stack.getByText('processTicksAndRejections', { exact: true }).waitFor();

    // The request the error happened in, the user, contexts and extra.
    const request = page.getByRole('region', { name: 'Request' });
    await request.getByText('POST https://shop.example/api/checkout?step=2').waitFor();
    expect(await request.getByRole('table', { name: 'Request headers' }).textContent()).toContain('application/json');
    expect(await request.getByRole('table', { name: 'Request body' }).textContent()).toContain('visa');
    const user = page.getByRole('region', { name: 'User' });
    for (const value of ['ada@example.com', 'ada', '203.0.113.9'])
      await user.getByText(value, { exact: true }).waitFor();
    const contexts = page.getByRole('region', { name: 'Contexts' });
    for (const value of ['Operating system', 'Runtime', 'order', 'v20.11.1', '6.1.0', 'ord_1'])
      await contexts.getByText(value, { exact: true }).waitFor();
    const extra = page.getByRole('region', { name: 'Additional data' });
    await extra.getByText('{"items":3,"currency":"EUR"}').waitFor();

    // The breakdown names the OS and runtime, not only "Browsers: not sent".
    const breakdown = page.getByRole('region', { name: 'Where it happens' });
    await breakdown.getByText('node v20.11.1').waitFor();
    expect(await breakdown.getByRole('heading', { name: 'Browsers' }).count()).toBe(0);

    await page.screenshot({ path: `${artifacts}issue-event-data-${name}.png`, fullPage: true });
    expect(await violations(page)).toEqual([]);
    // Nothing is wider than a phone.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(viewport.width);

    // Older and newer step between the events.
    const eventId = page.locator('.context div').filter({ hasText: 'Event id' }).locator('dd');
    expect(await eventId.textContent()).toBe(`evt_${newer.event_id}`);
    const steps = page.getByRole('navigation', { name: 'Events of this issue' });
    expect(await steps.getByRole('button', { name: 'Newer event' }).isDisabled()).toBe(true);
    await steps.getByRole('button', { name: 'Older event' }).click();
    await page.waitForFunction(
      `document.querySelector('[aria-current="true"]')?.textContent && location.search.includes('${older.event_id}')`,
    );
    expect(await eventId.textContent()).toBe(`evt_${older.event_id}`);
    await page.getByText('Some data was cut for size: extra.').waitFor();
    expect(await steps.getByRole('button', { name: 'Older event' }).isDisabled()).toBe(true);
    expect(await violations(page)).toEqual([]);
    await steps.getByRole('button', { name: 'Newer event' }).click();
    await page.waitForFunction(`location.search.includes('${newer.event_id}')`);
    expect(await eventId.textContent()).toBe(`evt_${newer.event_id}`);

    // A tag value lists the app's issues with it: this one, not the other.
    await tags.getByRole('link', { name: 'free plan' }).click();
    await page.getByRole('heading', { level: 1, name: 'Issues' }).waitFor();
    expect(new URL(page.url()).searchParams.get('q')).toBe('plan:"free plan"');
    // The search box shows the term as a chip (search-box.tsx).
    await page.getByRole('button', { name: 'Remove plan:"free plan"' }).waitFor();
    const rows = page.locator('table.issues tbody tr');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('Checkout failed');

    // The list: a sparkline per row, its 14 days said in words, and the level.
    const sparkline = rows.first().getByRole('img', { name: /^2 events in the last 14 days, most on / });
    await sparkline.waitFor();
    expect(await rows.first().locator('svg.sparkline rect').count()).toBe(14);
    await rows.first().locator('.level-error').waitFor();
    await page.goto(`${base}/issues?app=${app.appKey}`);
    await page.locator('table.issues tbody tr').nth(1).waitFor();
    expect(await page.locator('svg.sparkline').count()).toBe(2);
    expect(await violations(page)).toEqual([]);
    await page.screenshot({ path: `${artifacts}issue-list-sparkline-${name}.png`, fullPage: true });
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
