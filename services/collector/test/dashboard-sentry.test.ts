// The dashboard's Sentry side in Chromium against the real service: an app's DSN with its copy button, the right
// snippet per app type, a Sentry event's structured frames on the issue page, readable on a phone, and user feedback on
// its issue and its app.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, launchDashboardBrowser, signUp, startTestServer } from './harness';
import { dsnParts } from './sentry-fixtures';

const server = await startTestServer();
const base = server.url.replace('localhost', '127.0.0.1');

let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchDashboardBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  page = await context.newPage();
  page.setDefaultTimeout(15_000);
}, 180_000);

afterAll(async () => {
  await browser?.close();
});

async function signedIn(token: string, path: string) {
  await page.goto(`${base}/`);
  await page.evaluate(`sessionStorage.setItem('collector.session', ${JSON.stringify(token)})`);
  await page.goto(`${base}${path}`);
}

describe('dashboard with Sentry SDKs', () => {
  it('shows the DSN with a copy button, and the snippet for the app type', async () => {
    const { token } = await signUp(server);
    const node = await createApp(server, token, { name: 'API', type: 'node' });
    const web = await createApp(server, token, { name: 'Shop', type: 'web' });

    await signedIn(token, `/apps/${node.appKey}`);
    await page.getByRole('heading', { level: 1, name: 'API' }).waitFor();
    expect(await page.locator('[data-dsn]').textContent()).toBe(node.dsn);
    const snippet = await page.getByLabel('SDK snippet').textContent();
    expect(snippet).toContain("import * as Sentry from '@sentry/node';");
    expect(snippet).toContain(`Sentry.init({ dsn: '${node.dsn}' });`);
    await page.getByRole('button', { name: 'Copy DSN' }).click();
    await page.getByText('Copied').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(node.dsn);

    await signedIn(token, `/apps/${web.appKey}`);
    await page.getByRole('heading', { level: 1, name: 'Shop' }).waitFor();
    const tag = await page.getByLabel('SDK snippet').textContent();
    expect(tag).toContain(`<script src="${base}/sdk/collector.min.js" crossorigin="anonymous"></script>`);
    expect(tag).toContain(`appKey: '${web.appKey}'`);
  });

  it("shows a Sentry event's frames, in-app ones apart, with file names readable on a phone", async () => {
    const { token } = await signUp(server);
    const app = await createApp(server, token, { name: 'API', type: 'node' });
    const { projectId, publicKey } = dsnParts(app.dsn);
    const frames = [
      {
        function: 'processTicksAndRejections',
        filename: 'node:internal/process/task_queues',
        lineno: 95,
        colno: 5,
        in_app: false,
      },
      {
        function: 'handleCheckout',
        filename: '/srv/shop/node_modules/express/lib/router/a-very-long-directory-name/layer.js',
        lineno: 12,
        colno: 3,
        in_app: false,
      },
      {
        function: 'chargeCard',
        filename: '/srv/shop/src/payments/charge-card-with-a-rather-long-file-name.ts',
        lineno: 42,
        colno: 11,
        in_app: true,
      },
    ];
    const event = {
      event_id: crypto.randomUUID().replaceAll('-', ''),
      platform: 'node',
      exception: { values: [{ type: 'TypeError', value: 'card is undefined', stacktrace: { frames } }] },
    };
    expect(
      (await server.call('POST', `/api/${projectId}/store/?sentry_key=${publicKey}`, { body: event })).status,
    ).toBe(200);
    const [issue] = (await server.call('GET', `/api/issues?appKey=${app.appKey}`, { token })).body.issues;

    await signedIn(token, `/issues/${encodeURIComponent(issue.id)}`);
    const rows = page.locator('ol.frames:not(.frames-nested) > li');
    await rows.first().waitFor();
    // The in-app frame, then the two library frames folded into one line that opens.
    expect(await rows.count()).toBe(2);
    // Innermost first: the app's own frame leads, marked.
    expect(await rows.nth(0).getAttribute('class')).toBe('frame in-app');
    expect(await rows.nth(0).textContent()).toContain('chargeCardyour code');
    expect(await rows.nth(0).locator('.frame-file').textContent()).toBe('charge-card-with-a-rather-long-file-name.ts');
    expect(await rows.nth(0).textContent()).toContain(':42:11');
    expect(await rows.nth(1).getAttribute('class')).toBe('frame-group');
    await rows.nth(1).getByText('2 library frames').click();
    const library = rows.nth(1).locator('li.frame');
    expect(await library.count()).toBe(2);
    expect(await library.nth(0).textContent()).toContain('handleCheckout');
    expect(await library.nth(1).textContent()).toContain('processTicksAndRejections');
    await page.getByText('Raw stack trace').click();
    expect(await page.locator('pre.stack').textContent()).toContain(
      '    at chargeCard (/srv/shop/src/payments/charge-card-with-a-rather-long-file-name.ts:42:11)',
    );

    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    const box = await rows.nth(0).locator('.frame-path').boundingBox();
    expect(box && box.x + box.width).toBeLessThanOrEqual(390);
  });

  it('lists user feedback on its issue and on the app’s page, with a link from the app’s list to the issue', async () => {
    const { token } = await signUp(server);
    const app = await createApp(server, token, { name: 'API', type: 'node' });
    const { projectId, publicKey } = dsnParts(app.dsn);
    const eventId = crypto.randomUUID().replaceAll('-', '');
    const line = (value: unknown) => `${JSON.stringify(value)}\n`;
    const body =
      line({ event_id: eventId }) +
      line({ type: 'event' }) +
      line({
        event_id: eventId,
        platform: 'node',
        exception: { values: [{ type: 'Error', value: 'checkout froze' }] },
      }) +
      line({ type: 'user_report' }) +
      line({ event_id: eventId, name: 'Ada', email: 'ada@example.com', comments: 'The pay button did nothing' }) +
      line({ type: 'feedback' }) +
      line({
        event_id: crypto.randomUUID().replaceAll('-', ''),
        contexts: { feedback: { message: 'Love the new look' } },
      });
    const sent = await server.call('POST', `/api/${projectId}/envelope/?sentry_key=${publicKey}`, { rawBody: body });
    expect(sent.status).toBe(200);
    const [issue] = (await server.call('GET', `/api/issues?appKey=${app.appKey}`, { token })).body.issues;

    await signedIn(token, `/issues/${encodeURIComponent(issue.id)}`);
    const onIssue = page.getByRole('region', { name: 'User feedback' });
    await onIssue.getByText('The pay button did nothing').waitFor();
    expect(await onIssue.getByRole('listitem').count()).toBe(1);
    expect(await onIssue.getByRole('listitem').textContent()).toContain('Ada · ada@example.com');

    await signedIn(token, `/apps/${app.appKey}`);
    const onApp = page.getByRole('region', { name: 'User feedback' });
    await onApp.getByText('Love the new look').waitFor();
    expect(await onApp.getByRole('listitem').allTextContents()).toEqual([
      expect.stringContaining('Love the new lookAnonymous'),
      expect.stringContaining('The pay button did nothingAda'),
    ]);
    await onApp.getByRole('link', { name: 'See the issue of this feedback' }).click();
    await page.waitForURL(`${base}/issues/${encodeURIComponent(issue.id)}`);
  });
});
