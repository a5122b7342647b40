// The Alerts page in a real browser (Debian chromium through playwright-core): create a rule, send a test, see the
// delivery with its status and attempts, see the alert a new issue sends, delete the rule.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dashboardArtifacts as artifacts,
  backend,
  createApp,
  launchDashboardBrowser,
  makeEvent,
  sendBatch,
  signUp,
  startTestServer,
} from './harness';
import { startReceiver } from './webhook-receiver';

const server = await startTestServer({ alerts: { allowPrivateNetworks: true, pollMs: 100 } });
const base = server.url.replace('localhost', '127.0.0.1');
const receiver = await startReceiver();
afterAll(() => receiver.close());

let browser: Browser;
let page: Page;
beforeAll(async () => {
  browser = await launchDashboardBrowser();
  page = await (
    await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US', timezoneId: 'UTC' })
  ).newPage();
  page.setDefaultTimeout(15_000);
}, 180_000);
afterAll(() => browser?.close());

describe(`the Alerts page (${backend})`, () => {
  it('creates a webhook rule, sends a test, lists deliveries, and deletes the rule', async () => {
    const { token } = await signUp(server);
    const app = await createApp(server, token, { name: 'Shop' });
    // Signed in as the dashboard keeps it: the token in this tab's sessionStorage.
    await page.goto(`${base}/signin`);
    await page.evaluate(`sessionStorage.setItem('collector.session', ${JSON.stringify(token)})`);
    await page.goto(`${base}/apps/${app.appKey}`);
    await page.getByRole('link', { name: 'Alerts' }).last().click();
    await page.getByRole('heading', { level: 1, name: 'Alerts' }).waitFor();
    await page.getByText('No rules yet').waitFor();

    // A refused field is named in the error, not "A value ...".
    await page.getByLabel('URL').fill('ftp://hooks.example.com/collector');
    await page.getByRole('button', { name: 'Add rule' }).click();
    expect(await page.getByRole('alert').textContent()).toContain(
      'The webhook URL must be an http:// or https:// URL.',
    );

    await page.getByLabel('URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add rule' }).click();
    const rule = page.locator('table.alerts tbody tr');
    await rule.first().waitFor();
    expect(await rule.first().textContent()).toContain(`Webhook to ${receiver.url}`);

    await page.getByRole('button', { name: 'Send a test' }).click();
    await page.getByText('The test was delivered.').waitFor();
    expect(receiver.received.at(-1)?.body).toMatchObject({
      trigger: 'test',
      app: { appKey: app.appKey, name: 'Shop' },
    });
    const delivery = page.locator('table.deliveries tbody tr').first();
    await delivery.waitFor();
    expect(await delivery.locator('[data-status]').textContent()).toBe('delivered');

    // A spike rule with its numbers.
    await page.getByLabel('When').selectOption('spike');
    await page.getByLabel('Events (at least)').fill('5');
    await page.getByLabel('Within minutes (1 to 1440)').fill('10');
    await page.getByLabel('URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.getByText('5 events of an issue within 10 min').waitFor();

    // New issues: their deliveries show after a refresh, one with a fingerprint as long and unbroken as a hash.
    const hashed = `Error:${'9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'}`;
    const events = [makeEvent({ fingerprint: 'TypeError:ui' }), makeEvent({ fingerprint: hashed })];
    expect((await sendBatch(server, app.appKey, events)).status).toBe(200);
    await receiver.waitFor(3, 5_000);
    await page.waitForTimeout(300);
    await page.getByRole('button', { name: 'Refresh deliveries' }).click();
    await page.getByRole('link', { name: 'TypeError:ui' }).waitFor();
    await page.getByRole('link', { name: hashed }).waitFor();
    await page.screenshot({ path: `${artifacts}alerts.png`, fullPage: true });
    // A phone shows the rules and the deliveries without sideways scrolling.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${artifacts}alerts-phone.png`, fullPage: true });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    // Nor inside a table's own frame, which would scroll (or clip) a long URL or issue id out of its card.
    const overflowing = `[...document.querySelectorAll('.table-scroll')]
      .filter((frame) => frame.scrollWidth > frame.clientWidth).map((frame) => frame.firstElementChild.className)`;
    expect(await page.evaluate(overflowing)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 900 });

    page.on('dialog', (dialog) => void dialog.accept());
    await rule.first().getByRole('button', { name: 'Delete' }).click();
    await page.getByText(`Webhook to ${receiver.url}`).first().waitFor();
    // A locator, not waitForFunction with a string: the page's CSP forbids the eval that would take.
    await expect.poll(() => page.locator('table.alerts tbody tr').count()).toBe(1);
    const left = await server.call('GET', `/api/apps/${app.appKey}/alerts`, { token });
    expect(left.body.alerts.map((alert: { trigger: string }) => alert.trigger)).toEqual(['spike']);
  });
});
