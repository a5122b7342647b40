// The dashboard in a real browser (Debian chromium through playwright-core) against the real service: a new user
// signs up, creates apps, events arrive through the API, and every screen shows them. Screenshots of each screen
// land in test/artifacts/dashboard-ui/ (git-ignored).
import { errorStatus } from '@collector/api';
import express from 'express';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveDashboard } from '../src/dashboard';
import { createLogger } from '../src/logger';
import {
  dashboardArtifacts as artifacts,
  backend,
  launchDashboardBrowser,
  makeEvent,
  PASSWORD,
  sendBatch,
  startTestServer,
  uniqueEmail,
} from './harness';

// Shifted only while a test sends events "received" days ago (outcomes count by the hour of receipt).
let clockOffset = 0;
const server = await startTestServer({ clock: () => Date.now() + clockOffset });
const base = server.url.replace('localhost', '127.0.0.1');

let browser: Browser;
let context: BrowserContext;
let page: Page;
const requestedUrls: string[] = [];
const browserErrors: string[] = [];

beforeAll(async () => {
  browser = await launchDashboardBrowser();
  context = await browser.newContext({
    viewport: { width: 1280, height: 860 },
    colorScheme: 'light',
    locale: 'en-US',
    timezoneId: 'UTC',
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on('request', (request) => requestedUrls.push(request.url()));
  page.on('pageerror', (error) => browserErrors.push(`page error: ${error.message}`));
  // "Failed to load resource" is the browser noting an API error answer the test asked for (a 404, a 401).
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
      browserErrors.push(message.text());
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
});

// Expressions run in the page, as text: this package's TypeScript has no DOM types, and needs none elsewhere.
const inPage = <T>(expression: string) => page.evaluate(expression) as Promise<T>;
const storedToken = "sessionStorage.getItem('collector.session')";
const pageWidth = 'document.documentElement.scrollWidth';

const shot = (name: string) => page.screenshot({ path: `${artifacts}${name}.png`, fullPage: true });

/** Waits until the locator's text is the expected one (playwright-core has no auto-waiting expect). */
async function waitForText(locator: Locator, expected: string | RegExp, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: string | null = null;
  while (Date.now() < deadline) {
    last = (await locator.count()) > 0 ? ((await locator.first().textContent()) ?? '').trim() : null;
    if (last !== null && (typeof expected === 'string' ? last === expected : expected.test(last))) return;
    await page.waitForTimeout(100);
  }
  throw new Error(`expected ${String(expected)}, saw ${JSON.stringify(last)} (${locator})`);
}

const heading = (name: string | RegExp) => page.getByRole('heading', { level: 1, name });
const total = (key: string) => page.locator(`[data-total="${key}"] dd`);
const minutesAgo = (minutes: number) => Date.now() - minutes * 60_000;

/** What a web SDK sends for a crash in the checkout: a stack, and the user's trail up to it. */
function checkoutCrash(minutes: number, user: string, session: string, lastClick = 'button#checkout') {
  const at = minutesAgo(minutes);
  return makeEvent({
    timestamp: at,
    anonymousId: user,
    sessionId: session,
    url: 'https://shop.example/cart',
    release: 'shop@2.14.0',
    environment: 'production',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0 Safari/537.36',
    stack: [
      "TypeError: Cannot read properties of undefined (reading 'id')",
      '    at renderCart (https://shop.example/assets/app.3f9a2c1b.js:10:20)',
      '    at CartSummary (https://shop.example/assets/app.3f9a2c1b.js:118:9)',
      '    at onClick (https://shop.example/assets/app.3f9a2c1b.js:42:7)',
      '    at HTMLButtonElement.dispatch (https://shop.example/assets/vendor.91be2c.js:2:4410)',
    ].join('\n'),
    breadcrumbs: [
      { timestamp: at - 9000, category: 'navigation', message: '/products -> /cart', level: 'info' },
      {
        timestamp: at - 4000,
        category: 'fetch',
        message: 'GET /api/cart [200]',
        level: 'info',
        data: { durationMs: 84 },
      },
      { timestamp: at - 1200, category: 'console', message: 'cart item without product', level: 'warning' },
      { timestamp: at - 300, category: 'ui.click', message: lastClick, level: 'info' },
    ],
  });
}

function failedCheckout(minutes: number, user: string) {
  return makeEvent({
    type: 'request',
    errorType: undefined,
    message: undefined,
    stack: undefined,
    timestamp: minutesAgo(minutes),
    anonymousId: user,
    request: { method: 'POST', url: 'https://shop.example/api/checkout?cart=8812', status: 502, durationMs: 1834 },
    breadcrumbs: [
      { timestamp: minutesAgo(minutes) - 2000, category: 'ui.click', message: 'button#pay', level: 'info' },
    ],
  });
}

const FLAGS =
  'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango'.split(
    ' ',
  );

describe(`dashboard in a browser (${backend})`, () => {
  it('signs up, creates apps, shows totals, issues and an issue with its stack and breadcrumbs, and signs out', async () => {
    // Signed out, every path leads to the sign-in screen; a new user goes on to create an account.
    await page.goto(`${base}/`);
    await heading('Sign in').waitFor();
    await page.getByRole('link', { name: 'Create an account' }).click();
    await heading('Create your account').waitFor();
    const email = uniqueEmail();
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await shot('01-sign-up');
    await page.getByLabel('Password').press('Enter');

    // No apps yet: the overview says what to do first.
    await heading('Overview').waitFor();
    await page.getByText('No apps yet').waitFor();
    await waitForText(total('events'), '0');
    await shot('02-overview-no-apps');

    // A reload keeps the session (sessionStorage), and the token is nowhere in the URL.
    await page.reload();
    await heading('Overview').waitFor();
    const token = await inPage<string | null>(storedToken);
    expect(token).toMatch(/^session_/);

    // Create an app; its screen shows the appKey, a copy button and the SDK snippet.
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Apps' }).click();
    await heading('Apps').waitFor();
    await page.getByLabel('Name').fill('Shop');
    await page.getByLabel('Type').selectOption('web');
    await shot('03-apps-create');
    await page.getByRole('button', { name: 'Create app' }).click();
    await heading('Shop').waitFor();
    const appKey = await page.locator('[data-app-key]').getAttribute('data-app-key');
    expect(appKey).toMatch(/^web_/);
    expect(page.url()).toBe(`${base}/apps/${appKey}`);
    expect(await page.getByLabel('SDK snippet').textContent()).toContain(`appKey: '${appKey}'`);
    expect(await page.getByLabel('SDK snippet').textContent()).toContain(`endpoint: '${base}'`);
    await page.getByRole('button', { name: 'Copy appKey' }).click();
    await page.getByText('Copied').waitFor();
    expect(await inPage<string>('navigator.clipboard.readText()')).toBe(appKey);
    await shot('04-app');

    // A second app, made through the API with the dashboard's own session.
    const second = await server.call('POST', '/api/apps', {
      token: token ?? '',
      body: { name: 'Back office', type: 'react-native' },
    });
    expect(second.status).toBe(201);
    const backOfficeKey = second.body.app.appKey as string;

    // Before any event: "no events yet: add the SDK".
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Overview' }).click();
    await heading('Overview').waitFor();
    await page.getByText('No events yet: add the SDK').waitFor();
    await shot('05-overview-no-events');

    // Events arrive the way an SDK sends them.
    const shopEvents = [
      checkoutCrash(4, 'anon_alice', 'session_a1'),
      checkoutCrash(38, 'anon_bob', 'session_b1'),
      checkoutCrash(95, 'anon_alice', 'session_a0'),
      checkoutCrash(190, 'anon_carol', 'session_c1'),
      checkoutCrash(400, 'anon_bob', 'session_b0'),
      checkoutCrash(720, 'anon_carol', 'session_c0', 'button#apply-coupon'),
      failedCheckout(12, 'anon_alice'),
      failedCheckout(130, 'anon_dave'),
      failedCheckout(300, 'anon_dave'),
      makeEvent({
        errorType: 'RangeError',
        message: 'Invalid time value',
        timestamp: minutesAgo(60),
        anonymousId: 'anon_erin',
        stack:
          'RangeError: Invalid time value\n    at Date.toISOString (<anonymous>)\n    at formatDelivery (https://shop.example/assets/app.3f9a2c1b.js:77:31)',
      }),
      makeEvent({
        errorType: 'RangeError',
        message: 'Invalid time value',
        timestamp: minutesAgo(260),
        anonymousId: 'anon_erin',
        stack:
          'RangeError: Invalid time value\n    at Date.toISOString (<anonymous>)\n    at formatDelivery (https://shop.example/assets/app.3f9a2c1b.js:77:31)',
      }),
      // Older, one-off issues: enough of them for a second page of issues.
      ...FLAGS.map((flag, index) =>
        makeEvent({
          errorType: 'ReferenceError',
          message: `feature flag ${flag} is not defined`,
          timestamp: minutesAgo(60 * 24 * (2 + index / 4)),
          anonymousId: 'anon_legacy',
        }),
      ),
    ];
    const shop = await sendBatch(server, appKey ?? '', shopEvents);
    expect(shop.body).toEqual({ accepted: shopEvents.length, duplicates: 0, rejected: [] });
    const backOffice = await sendBatch(server, backOfficeKey, [
      makeEvent({
        errorType: 'TypeError',
        message: 'navigation.push is not a function',
        platform: 'react-native',
        timestamp: minutesAgo(20),
        anonymousId: 'anon_zed',
      }),
    ]);
    expect(backOffice.body.accepted).toBe(1);

    // The overview over all apps: the five totals of the last 24 hours (the default period, from the start of the
    // chart's first hour), the chart, the latest issues.
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByRole('heading', { name: /^Totals since / }).waitFor();
    await waitForText(total('events'), '12');
    expect(await total('errors').textContent()).toBe('9');
    expect(await total('failedRequests').textContent()).toBe('3');
    expect(await total('affectedUsers').textContent()).toBe('6'); // alice bob carol dave erin zed
    expect(await total('issues').textContent()).toBe('4');
    expect(await page.locator('svg rect.chart-errors').count()).toBeGreaterThan(3);
    expect(await page.locator('svg rect.chart-requests').count()).toBe(3);
    // All time: the older one-off issues too, and the period in the URL.
    await page.getByRole('button', { name: 'All time', exact: true }).click();
    await page.getByRole('heading', { name: 'Totals, all time' }).waitFor();
    await waitForText(total('events'), String(shopEvents.length + 1));
    expect(new URL(page.url()).searchParams.get('range')).toBe('all');
    expect(await total('errors').textContent()).toBe(String(shopEvents.length + 1 - 3));
    expect(await total('affectedUsers').textContent()).toBe('7'); // and legacy
    expect(await total('issues').textContent()).toBe(String(3 + FLAGS.length + 1));
    await page.getByText('No events yet').waitFor({ state: 'detached' });
    await page
      .getByRole('region', { name: 'Latest unresolved issues' })
      .getByText("Cannot read properties of undefined (reading 'id')")
      .waitFor();
    // What was dropped and why: every event of the two batches accepted, every reason listed.
    const outcome = (reason: string) => page.locator(`[data-outcome="${reason}"] .outcome-count`);
    await waitForText(outcome('accepted'), String(shopEvents.length + 1));
    for (const reason of ['duplicate', 'invalid', 'rate_limited', 'too_large', 'unsupported'])
      expect(await outcome(reason).textContent()).toBe('0');
    await shot('06-overview');

    // One app only.
    await page.getByLabel('App').selectOption({ label: 'Back office' });
    await waitForText(total('events'), '1');
    expect(new URL(page.url()).searchParams.get('app')).toBe(backOfficeKey);
    await page.getByLabel('App').selectOption({ label: 'All apps' });
    await waitForText(total('events'), String(shopEvents.length + 1));

    // The 30-day chart shows the older issues too.
    await page.getByRole('button', { name: '30 days', exact: true }).click();
    await page.getByRole('heading', { name: /^Totals since / }).waitFor();
    await page.getByText(/^\d+ events since /).waitFor();
    await shot('07-overview-30-days');

    // Issues: the table, paged by cursor.
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Issues' }).click();
    await heading('Issues').waitFor();
    const rows = page.locator('table.issues tbody tr');
    await waitForText(rows.first().locator('.issue-message'), "Cannot read properties of undefined (reading 'id')");
    expect(await rows.count()).toBe(20);
    const crashRow = rows.filter({ hasText: "reading 'id'" });
    expect(await crashRow.locator('td[data-label="Events"]').textContent()).toBe('6');
    expect(await crashRow.locator('td[data-label="Users"]').textContent()).toBe('3');
    expect(await crashRow.locator('td[data-label="Last seen"]').textContent()).toBe('4 minutes ago');
    expect(await crashRow.locator('td[data-label="First seen"]').textContent()).toBe('12 hours ago');
    await shot('08-issues');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText('Page 2', { exact: true }).waitFor();
    await waitForText(rows.first().locator('.issue-message'), /feature flag \w+ is not defined/);
    expect(await rows.count()).toBe(3 + FLAGS.length + 1 - 20);
    expect(await page.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    await shot('09-issues-page-2');
    await page.getByRole('button', { name: 'Previous' }).click();
    await page.getByText('Page 1', { exact: true }).waitFor();

    // Filtered to one app.
    await page.getByLabel('App').selectOption({ label: 'Back office' });
    await waitForText(rows.first().locator('.issue-message'), 'navigation.push is not a function');
    expect(await rows.count()).toBe(1);
    await page.getByLabel('App').selectOption({ label: 'Shop' });
    await waitForText(rows.first().locator('.issue-message'), "Cannot read properties of undefined (reading 'id')");

    // Open the issue with the keyboard: its stack, the latest event's breadcrumbs, the recent events.
    await page.getByRole('link', { name: /reading 'id'/ }).focus();
    await page.keyboard.press('Enter');
    await heading(/TypeError\s*renderCart \(\/assets\/app\.3f9a2c1b\.js\)/).waitFor();
    await page.getByText("Cannot read properties of undefined (reading 'id')", { exact: true }).waitFor();
    expect(await inPage<string>('document.activeElement?.tagName')).toBe('H1');
    await waitForText(
      page.locator('pre.stack'),
      /at renderCart \(https:\/\/shop\.example\/assets\/app\.3f9a2c1b\.js:10:20\)/,
    );
    const crumbs = page.locator('ol.breadcrumbs li');
    expect(await crumbs.count()).toBe(4);
    expect(await crumbs.nth(3).textContent()).toContain('button#checkout');
    expect(await crumbs.nth(1).textContent()).toContain('{"durationMs":84}');
    const events = page.locator('table.events tbody tr');
    expect(await events.count()).toBe(6);
    expect(await events.first().textContent()).toContain('anon_alice');
    expect(await events.first().textContent()).toContain('Chrome 156 · Linux');
    expect(await events.first().textContent()).toContain('shop@2.14.0');
    expect(await page.getByRole('region', { name: 'Context' }).textContent()).toContain('shop@2.14.0');
    await shot('10-issue');
    // An older event's own trail.
    await events.last().getByRole('button', { name: /^Show/ }).click();
    await waitForText(crumbs.nth(3), /button#apply-coupon/);
    await page.getByText('picked event').waitFor();

    // The same issue on a phone, and the overview in dark mode.
    await page.setViewportSize({ width: 390, height: 844 });
    await shot('11-issue-phone');
    expect(await inPage<number>(pageWidth)).toBeLessThanOrEqual(390);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Issues' }).click();
    await waitForText(rows.first().locator('.issue-message'), /reading 'id'|navigation\.push/);
    await shot('12-issues-phone');
    expect(await inPage<number>(pageWidth)).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.emulateMedia({ colorScheme: 'dark' });
    // The app chosen on the issues (Shop) comes along to the overview, which keeps its period (30 days).
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Overview' }).click();
    await waitForText(total('events'), String(shopEvents.length));
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ app: appKey, range: '30d' });
    expect(await inPage<string>('getComputedStyle(document.documentElement).backgroundColor')).toBe('rgb(15, 17, 21)');
    await shot('13-overview-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    // An error state carries the API's message.
    await page.goto(`${base}/issues/${encodeURIComponent(`${appKey}:TypeError:nope`)}`);
    await page.getByRole('alert').getByText('Could not load this issue').waitFor();
    expect(await page.getByRole('alert').textContent()).toContain(
      'It does not exist, or it belongs to another account.',
    );
    await shot('14-issue-error');

    // Sign out: the token is forgotten here and refused by the API.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in').waitFor();
    expect(await inPage<string | null>(storedToken)).toBeNull();
    expect((await server.call('GET', '/api/auth/me', { token: token ?? '' })).status).toBe(401);
    await shot('15-signed-out');

    // A deep link while signed out comes back to its screen after signing in.
    await page.goto(`${base}/issues`);
    await heading('Sign in').waitFor();
    expect(new URL(page.url()).searchParams.get('next')).toBe('/issues');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill('not the passphrase');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toBe('That e-mail and password do not match an account.');
    await shot('16-sign-in-error');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Issues').waitFor();

    // The token never travelled in a URL; the page loaded nothing from elsewhere and logged no errors.
    const secrets = [token ?? '', (await inPage<string | null>(storedToken)) ?? ''];
    expect(requestedUrls.filter((url) => secrets.some((secret) => url.includes(secret)))).toEqual([]);
    expect(requestedUrls.filter((url) => !url.startsWith(base) && !url.startsWith('data:'))).toEqual([]);
    expect(browserErrors).toEqual([]);
  }, 180_000);

  it('triage: finds the loudest unresolved issue of a release, resolves it, sees it regress, ignores a noisy one', async () => {
    const owner = await server.call('POST', '/api/auth/register', {
      body: { email: uniqueEmail(), password: PASSWORD },
    });
    const token = owner.body.token as string;
    const created = await server.call('POST', '/api/apps', { token, body: { name: 'Shop', type: 'web' } });
    const appKey = created.body.app.appKey as string;
    const items = "Cannot read properties of undefined (reading 'items')";
    const at = (fn: string, file: string) =>
      `TypeError: ${items}\n    at ${fn} (https://shop.example/assets/${file}.js:10:20)\n    at dispatch (https://shop.example/assets/vendor.js:1:1)`;
    const chrome =
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
    const safari =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';
    const release = (name: string, count: number, event: Record<string, unknown>) =>
      Array.from({ length: count }, (_, i) =>
        makeEvent({
          release: name,
          environment: 'production',
          anonymousId: `anon_${name.replaceAll('.', '_')}_${i % 4}`,
          userAgent: i % 3 ? chrome : safari,
          timestamp: minutesAgo(5 + i * 90),
          ...event,
        }),
      );
    const batch = [
      ...release('2.0.0', 8, { fingerprint: 'TypeError:cart', message: items, stack: at('CartDrawer.render', 'cart') }),
      ...release('2.0.0', 2, {
        fingerprint: 'TypeError:checkout',
        message: items,
        stack: at('CheckoutForm.submit', 'checkout'),
      }),
      ...release('2.0.0', 5, {
        fingerprint: 'Error:resize',
        errorType: 'Error',
        message: 'ResizeObserver loop completed with undelivered notifications.',
        stack: undefined,
      }),
      ...release('1.9.0', 12, {
        fingerprint: 'TypeError:old',
        message: 'this.items.map is not a function',
        stack: at('OrderHistory.render', 'orders'),
      }),
      makeEvent({
        fingerprint: 'request:pay',
        type: 'request',
        errorType: undefined,
        message: undefined,
        stack: undefined,
        release: '2.0.0',
        request: { method: 'POST', url: 'https://shop.example/api/orders/8812/pay', status: 502 },
      }),
    ];
    expect((await sendBatch(server, appKey, batch)).body.accepted).toBe(batch.length);

    const triage = await browser.newContext({
      viewport: { width: 1280, height: 860 },
      colorScheme: 'light',
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    await triage.addInitScript(`sessionStorage.setItem('collector.session', ${JSON.stringify(token)})`);
    const tab = await triage.newPage();
    tab.setDefaultTimeout(15_000);
    const errors: string[] = [];
    tab.on('pageerror', (error) => errors.push(error.message));
    const triageShot = (name: string) => tab.screenshot({ path: `${artifacts}triage-${name}.png`, fullPage: true });
    const rows = tab.locator('table.issues tbody tr');
    const matches = tab.locator('.list-head p[role="status"]');
    const within = async (locator: Locator, expected: string | RegExp) => {
      const deadline = Date.now() + 15_000;
      let last = '';
      while (Date.now() < deadline) {
        last = (await locator.count()) > 0 ? ((await locator.first().textContent()) ?? '').trim() : '';
        if (typeof expected === 'string' ? last === expected : expected.test(last)) return;
        await tab.waitForTimeout(100);
      }
      throw new Error(`expected ${String(expected)}, saw ${JSON.stringify(last)}`);
    };

    // Unresolved by default, with how many match.
    await tab.goto(`${base}/issues`);
    await tab.getByRole('heading', { level: 1, name: 'Issues' }).waitFor();
    expect(await tab.getByRole('link', { name: 'Unresolved' }).getAttribute('aria-current')).toBe('page');
    await within(matches, /^5 issues match/);

    // The loudest unresolved issue of release 2.0.0: filter and sort, all in the URL. The release filter suggests the
    // app's releases, exactly as sent (it matches them exactly), those of the most issues first.
    const suggested = (name: string) =>
      tab.evaluate(`[...document.querySelectorAll('#${name}-suggestions option')].map((option) => option.value)`);
    await expect.poll(() => suggested('release')).toEqual(['2.0.0', '1.9.0']);
    expect(await suggested('environment')).toEqual(['production']);
    expect(await tab.getByLabel('Release').getAttribute('list')).toBe('release-suggestions');
    await tab.getByLabel('Release').fill('2.0.0');
    await tab.getByLabel('Release').press('Enter');
    await within(matches, /^4 issues match/);
    await tab.getByLabel('Sort by').selectOption({ label: 'Most events' });
    await within(rows.first().locator('.issue-culprit'), 'CartDrawer.render (/assets/cart.js)');
    const listUrl = new URL(tab.url());
    expect(Object.fromEntries(listUrl.searchParams)).toEqual({ release: '2.0.0', sort: 'events' });
    // The same message twice, told apart by the culprit; the failed request is labelled as one.
    expect(await rows.nth(2).locator('.issue-culprit').textContent()).toBe('CheckoutForm.submit (/assets/checkout.js)');
    expect(await rows.filter({ hasText: 'POST /api/orders/<id>/pay' }).locator('.issue-type').textContent()).toBe(
      'Failed request',
    );
    await triageShot('01-list-release-by-events');

    // Open it: chart, breakdown, "1–8 of 8 events"; resolve it.
    await rows.first().getByRole('link').click();
    await tab.getByRole('heading', { level: 1, name: /CartDrawer\.render/ }).waitFor();
    await tab.getByText('1–8 of 8 events').waitFor();
    const breakdown = tab.getByRole('region', { name: 'Where it happens' });
    expect(await breakdown.textContent()).toContain('Chrome 131');
    expect(await breakdown.textContent()).toContain('iOS 18.1');
    expect(await tab.getByRole('region', { name: 'Events per day, last 30 days' }).textContent()).toContain(
      '8 events in the last 30 days',
    );
    // Show scrolls to the event it shows; each event has its own link.
    await tab.locator('table.events tbody tr').last().getByRole('button', { name: /^Show/ }).click();
    await tab.getByText('picked event').waitFor();
    expect(await tab.evaluate('window.scrollY')).toBeGreaterThan(200);
    expect(new URL(tab.url()).searchParams.get('event')).toMatch(/^evt_/);
    await tab.getByRole('button', { name: 'Resolve' }).click();
    await tab.locator('.badge-resolved').waitFor();
    await triageShot('02-issue-resolved');

    // Back (Show replaced the address rather than adding a step): the list as it was, without the resolved issue.
    await tab.goBack();
    await within(matches, /^3 issues match/);
    expect(new URL(tab.url()).search).toBe(listUrl.search);
    expect(await tab.getByLabel('Release').inputValue()).toBe('2.0.0');
    expect(await tab.getByLabel('Sort by').inputValue()).toBe('events');

    // A new event brings it back as a regression.
    expect(
      (
        await sendBatch(server, appKey, [
          makeEvent({ fingerprint: 'TypeError:cart', message: items, release: '2.0.1' }),
        ])
      ).body.accepted,
    ).toBe(1);
    await tab.getByRole('button', { name: 'Refresh' }).click();
    await within(matches, /^4 issues match/);
    await within(rows.first().locator('.badge'), 'Regressed');
    await triageShot('03-list-regressed');

    // Ignore the noisy one from the list: select, Ignore; it moves to the Ignored tab.
    await rows.filter({ hasText: 'ResizeObserver' }).getByRole('checkbox').check();
    await tab.getByRole('group', { name: 'With the selected issues' }).getByRole('button', { name: 'Ignore' }).click();
    await tab.getByText('1 issue ignored.').waitFor();
    await within(matches, /^3 issues match/);
    await tab.getByRole('link', { name: 'Ignored' }).click();
    await within(
      rows.first().locator('.issue-message'),
      'ResizeObserver loop completed with undelivered notifications.',
    );
    expect(new URL(tab.url()).searchParams.get('status')).toBe('ignored');

    // Search; then another section and back: the list state comes along.
    await tab.getByRole('link', { name: 'All' }).click();
    await tab.getByLabel('Search').fill('checkout');
    await tab.getByLabel('Search').press('Enter');
    await within(matches, /^1 issue matches/);
    const searched = tab.url();
    await tab.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Overview' }).click();
    await tab.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await tab.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Issues' }).click();
    await within(matches, /^1 issue matches/);
    expect(tab.url()).toBe(searched);

    // Phone width: the list and the issue without sideways scrolling.
    await tab.setViewportSize({ width: 390, height: 844 });
    await tab.getByLabel('Search').fill('');
    await tab.getByLabel('Search').press('Enter');
    await tab.getByRole('link', { name: 'Unresolved' }).click();
    await within(matches, /^3 issues match/);
    await triageShot('04-list-phone');
    expect(await tab.evaluate(pageWidth)).toBeLessThanOrEqual(390);
    // Select-all is seen, with its words, and works there (the other headings are hidden on a phone).
    const selectAll = tab.getByRole('checkbox', { name: 'Select every issue on this page' });
    expect(await tab.getByText('All on this page').isVisible()).toBe(true);
    expect((await selectAll.boundingBox())?.width).toBeGreaterThanOrEqual(12);
    await selectAll.check();
    await tab.getByText('3 issues selected').waitFor();
    await selectAll.uncheck();
    await tab.getByText('3 issues selected').waitFor({ state: 'detached' });
    await rows.first().getByRole('link').click();
    await tab.getByRole('heading', { level: 1, name: /CartDrawer\.render/ }).waitFor();
    await tab.locator('.badge-regressed').waitFor();
    // Unresolved since the new event was received (not since its own timestamp): the page says which.
    expect(await tab.locator('.facts dd').first().textContent()).toMatch(
      /^Unresolved since (just now|\d+ minutes? ago), when a new event was received after it was resolved$/,
    );
    await triageShot('05-issue-phone');
    expect(await tab.evaluate(pageWidth)).toBeLessThanOrEqual(390);

    // Signing out while the collector cannot be told says so.
    await tab.route('**/trpc/auth.logout**', (route) => route.abort());
    await tab.getByRole('button', { name: 'Sign out' }).click();
    await tab.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(await tab.getByRole('status').textContent()).toContain('the collector could not be told');
    await triageShot('06-signed-out-offline');
    expect(errors).toEqual([]);
    await triage.close();
  }, 180_000);

  it('overview: the totals, the chart and the outcomes count the same period, the one the page names', async () => {
    const owner = await server.call('POST', '/api/auth/register', {
      body: { email: uniqueEmail(), password: PASSWORD },
    });
    const token = owner.body.token as string;
    const created = await server.call('POST', '/api/apps', { token, body: { name: 'Shop', type: 'web' } });
    const appKey = created.body.app.appKey as string;
    // The page's "now", fixed; the windows start at the chart's first whole UTC hour or day before 24 h or 7 d ago.
    const now = Date.now();
    const HOUR = 3_600_000;
    const DAY = 24 * HOUR;
    const hourEdge = Math.floor((now - DAY) / HOUR) * HOUR;
    const dayEdge = Math.floor((now - 7 * DAY) / DAY) * DAY;
    // Received three days ago: in the 7-day outcomes, not in the 24-hour ones.
    clockOffset = -3 * DAY;
    try {
      const early = [makeEvent({ timestamp: now - 3 * DAY - 60_000 }), makeEvent({ timestamp: now - 3 * DAY - 1 })];
      expect((await sendBatch(server, appKey, early)).body.accepted).toBe(2);
    } finally {
      clockOffset = 0;
    }
    // Just after each window's start: in the chart's first (partial) bucket, before "24 hours ago" or "7 days ago".
    const late = [
      makeEvent({ timestamp: hourEdge + 1 }),
      makeEvent({ timestamp: now - 5 * 60_000 }),
      makeEvent({ timestamp: dayEdge + 1 }),
      makeEvent({ timestamp: now - 8 * DAY }),
    ];
    expect((await sendBatch(server, appKey, late)).body.accepted).toBe(4);

    const overview = await browser.newContext({
      viewport: { width: 1280, height: 860 },
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    await overview.addInitScript(`sessionStorage.setItem('collector.session', ${JSON.stringify(token)})`);
    const tab = await overview.newPage();
    tab.setDefaultTimeout(15_000);
    await tab.clock.setFixedTime(now);
    const events = tab.locator('[data-total="events"] dd');
    const chart = tab.getByRole('region', { name: /^Events/ }).locator('.chart-summary');
    const accepted = tab.locator('[data-outcome="accepted"] .outcome-count');
    const since = (at: number) =>
      `since ${new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(at)}`;
    const within = async (locator: Locator, expected: string | RegExp) => {
      const deadline = Date.now() + 15_000;
      let last = '';
      while (Date.now() < deadline) {
        last = (await locator.count()) > 0 ? ((await locator.first().textContent()) ?? '').trim() : '';
        if (typeof expected === 'string' ? last === expected : expected.test(last)) return;
        await tab.waitForTimeout(100);
      }
      throw new Error(`expected ${String(expected)}, saw ${JSON.stringify(last)}`);
    };

    // 24 hours: from the start of the hour that held "24 hours ago", the edge event and the recent one.
    await tab.goto(`${base}/?app=${appKey}`);
    await tab.getByRole('heading', { name: `Totals ${since(hourEdge)}` }).waitFor();
    await within(events, '2');
    await within(chart, new RegExp(`^2 events ${since(hourEdge)};`));
    await within(accepted, '4');
    expect(await tab.locator('[data-outcomes-span]').textContent()).toBe(since(hourEdge));

    // 7 days: from the start of the UTC day that held "7 days ago"; the outcomes follow the page's period.
    await tab.getByRole('button', { name: '7 days', exact: true }).click();
    await tab.getByRole('heading', { name: `Totals ${since(dayEdge)}` }).waitFor();
    await within(events, '5');
    await within(chart, new RegExp(`^5 events ${since(dayEdge)};`));
    await within(accepted, '6');
    await tab.screenshot({ path: `${artifacts}overview-7-days.png`, fullPage: true });

    // All time: everything.
    await tab.getByRole('button', { name: 'All time', exact: true }).click();
    await tab.getByRole('heading', { name: 'Totals, all time' }).waitFor();
    await within(events, '6');
    await within(accepted, '6');
    await overview.close();
  }, 60_000);

  it('shows "busy, retrying" while the collector answers 503, then the data, or the error when it lasts', async () => {
    const owner = await server.call('POST', '/api/auth/register', {
      body: { email: uniqueEmail(), password: PASSWORD },
    });
    const busy = await browser.newContext({
      viewport: { width: 1280, height: 860 },
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    await busy.addInitScript(`sessionStorage.setItem('collector.session', ${JSON.stringify(owner.body.token)})`);
    const tab = await busy.newPage();
    tab.setDefaultTimeout(15_000);
    const errors: string[] = [];
    tab.on('pageerror', (error) => errors.push(error.message));
    // The overview's calls answered as with the database frozen (503, UNAVAILABLE, Retry-After: 1) while `refusing`.
    const { message } = errorStatus.UNAVAILABLE;
    const unavailable = JSON.stringify({
      error: {
        code: -32603,
        message,
        data: { code: 'SERVICE_UNAVAILABLE', httpStatus: 503, appError: { code: 'UNAVAILABLE', message } },
      },
    });
    let refusing = true;
    await tab.route('**/trpc/overview.get**', (route) =>
      refusing
        ? route.fulfill({
            status: 503,
            headers: { 'content-type': 'application/json', 'retry-after': '1' },
            body: unavailable,
          })
        : route.continue(),
    );
    const retrying = tab.getByRole('status').filter({ hasText: 'The collector is busy; retrying' });
    const totals = tab.getByRole('region', { name: /^Totals/ });

    // Asked again after Retry-After, the screen calm meanwhile: the totals come once the collector answers.
    await tab.goto(`${base}/`);
    await retrying.first().waitFor();
    await tab.screenshot({ path: `${artifacts}busy-01-retrying.png`, fullPage: true });
    refusing = false;
    await totals.locator('[data-total="events"] dd').waitFor();
    expect(await totals.getByRole('alert').count()).toBe(0);

    // Still refused after a few retries: the error, with the way to try again.
    refusing = true;
    const started = Date.now();
    await tab.reload();
    await retrying.first().waitFor();
    const failed = totals.getByRole('alert');
    await failed.waitFor();
    expect(Date.now() - started).toBeGreaterThanOrEqual(3_000);
    expect(await failed.textContent()).toContain('Could not load the totals');
    expect(await failed.textContent()).toContain('busy or cannot reach its database');
    await tab.screenshot({ path: `${artifacts}busy-02-failed.png`, fullPage: true });
    expect(errors).toEqual([]);
    await busy.close();
  }, 60_000);

  it('serves the page for browser loads of dashboard paths, and JSON everywhere under /api', async () => {
    const html = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
    const index = await server.call('GET', '/issues/web_abc%3AError%3A123', { headers: html });
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/^text\/html/);
    expect(index.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(index.body).toContain('<div id="root">');
    expect((await server.call('GET', '/')).headers.get('content-type')).toMatch(/^text\/html/);
    expect((await server.call('HEAD', '/apps', { headers: html })).status).toBe(200);

    for (const path of ['/api/nothing', '/api', '/API/nothing', '/trpc/nothing', '/healthz/x']) {
      const reply = await server.call('GET', path, { headers: html });
      expect(reply.status, path).toBe(404);
      expect(reply.headers.get('content-type'), path).toMatch(/^application\/json/);
    }
    // Not a page load (curl, fetch): an unknown path is the contract's JSON 404.
    const plain = await server.call('GET', '/nothing');
    expect(plain.status).toBe(404);
    expect(plain.body.error.code).toBe('NOT_FOUND');
    expect((await server.call('POST', '/', { headers: html, body: {} })).body.error.code).toBe('NOT_FOUND');

    const script = /src="(\/assets\/[^"]+\.js)"/.exec(index.body)?.[1];
    expect(script).toBeDefined();
    const asset = await server.call('GET', script ?? '');
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    // Compressed for browsers that take it: brotli first, else gzip; the favicon is there.
    for (const [accept, encoding] of [
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
      ['identity', null],
    ] as const) {
      const reply = await fetch(`${base}${script}`, { headers: { 'accept-encoding': accept } });
      expect(reply.headers.get('content-encoding'), accept).toBe(encoding);
      expect(reply.headers.get('vary')).toContain('Accept-Encoding');
    }
    const favicon = await server.call('GET', '/favicon.svg');
    expect(favicon.status).toBe(200);
    expect(favicon.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect((await server.call('GET', '/.build.json', { headers: html })).body).not.toContain('sourcesModifiedAt');
  });

  it('serves the API alone when the dashboard is not built, saying so once', async () => {
    const lines: string[] = [];
    const logger = createLogger('silent');
    logger.info = ((message: string) => lines.push(message)) as typeof logger.info;
    const app = express();
    app.use(serveDashboard({ dir: '/nonexistent/dashboard/dist', logger }));
    app.use((_req, res) => res.status(404).json({ error: { code: 'NOT_FOUND' } }));
    const listener = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => listener.once('listening', resolve));
    try {
      const { port } = listener.address() as { port: number };
      const reply = await fetch(`http://127.0.0.1:${port}/issues`, { headers: { accept: 'text/html' } });
      expect(reply.status).toBe(404);
      expect(await reply.json()).toEqual({ error: { code: 'NOT_FOUND' } });
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/dashboard not built/);
    } finally {
      listener.close();
    }
  });
});
