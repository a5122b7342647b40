// Sentry's event data in the dashboard, from a real SDK: the issue page of python3-sentry-sdk's checkout failure
// (sentry-clients.ts) shows its tag values, the user's e-mail and every exception type of its chain, in Chromium. Kept
// apart from sentry.event-data.test.ts: it reads the issue page's panels, written to the contract's text rather than
// to the markup, which the dashboard builds in its own branch.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, launchDashboardBrowser, signUp, startTestServer } from './harness';
import { runPythonCheckout } from './sentry-clients';

const server = await startTestServer();
const base = server.url.replace('localhost', '127.0.0.1');

let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchDashboardBrowser();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
  page.setDefaultTimeout(15_000);
}, 180_000);

afterAll(async () => {
  await browser?.close();
});

/** Whether some element showing `text` is visible now (not in a closed panel, like the raw stack's). */
async function showsNow(text: string): Promise<boolean> {
  for (const match of await page.getByText(text).all()) if (await match.isVisible()) return true;
  return false;
}

/** Which of `texts` the page shows, polled until it shows them all or 10 s have passed (panels load on their own). */
async function shown(texts: Record<string, string>): Promise<Record<string, boolean>> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const seen: Record<string, boolean> = {};
    for (const [name, text] of Object.entries(texts)) seen[name] = await showsNow(text);
    if (Object.values(seen).every(Boolean) || Date.now() > deadline) return seen;
    await page.waitForTimeout(250);
  }
}

describe('Sentry event data on the issue page', () => {
  it('shows the tag values, the user e-mail and the exception chain of a python sentry-sdk event', {
    timeout: 60_000,
  }, async () => {
    const { token } = await signUp(server);
    const app = await createApp(server, token, { type: 'other' });
    await runPythonCheckout(app.dsn.replace('@localhost:', '@127.0.0.1:'));
    const [issue] = (await server.call('GET', `/api/issues?appKey=${app.appKey}`, { token })).body.issues;
    expect(issue).toMatchObject({ errorType: 'CheckoutError', message: 'Checkout failed' });

    await page.goto(`${base}/`);
    await page.evaluate(`sessionStorage.setItem('collector.session', ${JSON.stringify(token)})`);
    await page.goto(`${base}/issues/${encodeURIComponent(issue.id)}`);
    await page.getByText('Checkout failed').first().waitFor();

    const seen = await shown({
      tenant: 'acme',
      'checkout.step': 'payment',
      email: 'buyer42@example.com',
      cause: 'CardNetworkError',
      main: 'CheckoutError',
    });
    expect(seen).toEqual({ tenant: true, 'checkout.step': true, email: true, cause: true, main: true });
  });
});
