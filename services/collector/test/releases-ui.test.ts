// The Releases page in Chromium: reached from the app's page, each release with its events, new issues and deploys,
// and "No source maps for this release" where events arrived but nothing was uploaded for it.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, launchDashboardBrowser, makeEvent, sendBatch, signUp, startTestServer } from './harness';

const server = await startTestServer();
const base = server.url.replace('localhost', '127.0.0.1');
let browser: Browser;
beforeAll(async () => {
  browser = await launchDashboardBrowser();
}, 180_000);
afterAll(() => browser?.close());

describe('the Releases page', () => {
  it('lists releases with deploys and says plainly which have no source maps', async () => {
    const { token } = await signUp(server);
    const app = await createApp(server, token, { name: 'Shop' });
    const [org] = (await server.call('GET', '/api/orgs', { token })).body.orgs;
    const releases = `/api/0/organizations/${org.slug}/releases/`;
    const slug = (await server.call('GET', `/api/0/organizations/${org.slug}/projects/`, { token })).body[0].slug;
    expect(
      (await server.call('POST', releases, { token, body: { version: 'shop@1.0.0', projects: [slug] } })).status,
    ).toBe(201);
    await server.call('POST', `${releases}shop@1.0.0/deploys/`, { token, body: { environment: 'production' } });
    await sendBatch(server, app.appKey, [
      makeEvent({ fingerprint: 'js:ui', release: 'shop@1.1.0' }),
      makeEvent({ fingerprint: 'js:ui', release: 'shop@1.1.0' }),
    ]);

    const context = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC' });
    await context.addInitScript(`sessionStorage.setItem('collector.session', ${JSON.stringify(token)})`);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${base}/apps/${app.appKey}`);
    await page.getByRole('link', { name: 'Releases' }).click();
    await page.getByRole('heading', { level: 1, name: 'Releases' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/apps/${app.appKey}/releases`);
    const seen = page.locator('tr[data-release="shop@1.1.0"]');
    await seen.waitFor();
    await expect(seen.locator('[data-label="Events"]').textContent()).resolves.toBe('2');
    await expect(seen.locator('[data-label="New issues"]').textContent()).resolves.toBe('1');
    await expect(seen.getByText('No source maps for this release').isVisible()).resolves.toBe(true);
    const created = page.locator('tr[data-release="shop@1.0.0"]');
    await expect(created.locator('[data-label="Deploys"]').textContent()).resolves.toMatch(/^production/);
    // No events in it: nothing to map, so no note.
    await expect(created.getByText('No source maps for this release').count()).resolves.toBe(0);
    await context.close();
  }, 120_000);
});
