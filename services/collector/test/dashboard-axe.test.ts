// Every screen of the dashboard through axe (axe-core's rules, run in Debian's Chromium): 0 violations, in light and
// dark colours at desktop width and in light at phone width, each screen with data in it (totals, a failed request,
// an issue with its events, an alert rule with deliveries, a team invitation, a token).
import axe from 'axe-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  backend,
  createApp,
  launchDashboardBrowser,
  makeEvent,
  sendBatch,
  signUp,
  startTestServer,
  uniqueEmail,
} from './harness';
import { startReceiver } from './webhook-receiver';

const server = await startTestServer({ alerts: { allowPrivateNetworks: true, pollMs: 100 } });
const base = server.url.replace('localhost', '127.0.0.1');
const receiver = await startReceiver();
afterAll(() => receiver.close());

let browser: Browser;
beforeAll(async () => {
  browser = await launchDashboardBrowser();
}, 180_000);
afterAll(() => browser?.close());

/** axe's violations on the page as it is now, one line each: the rule and the elements it found. */
async function violations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's CSP (script-src 'self') does not govern.
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(axe.source);
  return page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((result) =>
    result.violations.map((each) => each.id + ': ' + each.nodes.map((node) => node.target.join(' ')).join(', ')))`);
}

interface Screen {
  name: string;
  path: string;
  /** Seen once the screen has its data. */
  ready: (page: Page) => Promise<unknown>;
  signedOut?: boolean;
}

const looks = [
  { name: 'light, desktop', viewport: { width: 1280, height: 900 }, colorScheme: 'light' },
  { name: 'dark, desktop', viewport: { width: 1280, height: 900 }, colorScheme: 'dark' },
  { name: 'light, phone', viewport: { width: 390, height: 844 }, colorScheme: 'light' },
] as const;

describe(`every dashboard screen under axe (${backend})`, () => {
  it.each(looks)(
    'finds no violations: $name',
    async ({ viewport, colorScheme }) => {
      const { token } = await signUp(server);
      const app = await createApp(server, token, { name: 'Shop' });
      const at = Date.now() - 60_000;
      const sent = await sendBatch(server, app.appKey, [
        makeEvent({ fingerprint: 'TypeError:axe', release: 'shop@1.0.0', environment: 'production', timestamp: at }),
        // Twelve: axe leaves a one-character total undecided ("too short"), and the contrast of the total is the point.
        ...Array.from({ length: 12 }, () =>
          makeEvent({
            type: 'request',
            errorType: undefined,
            message: undefined,
            stack: undefined,
            timestamp: at,
            request: { method: 'POST', url: 'https://shop.example/api/checkout', status: 502, durationMs: 40 },
          }),
        ),
      ]);
      expect(sent.body.accepted).toBe(13);
      const issueId = `${app.appKey}:TypeError:axe`;
      const rule = await server.call('POST', `/api/apps/${app.appKey}/alerts`, {
        token,
        body: { trigger: 'new_issue', channel: { type: 'webhook', url: receiver.url } },
      });
      expect(rule.status).toBe(201);
      receiver.answers.push(503);
      const test = await server.call('POST', `/api/apps/${app.appKey}/alerts/${rule.body.alert.id}/test`, { token });
      expect(test.body.delivery.status).toBe('failed');
      const [org] = (await server.call('GET', '/api/orgs', { token })).body.orgs;
      const invited = await server.call('POST', `/api/orgs/${org.slug}/invitations`, {
        token,
        body: { email: uniqueEmail(), role: 'member' },
      });
      expect(invited.status, JSON.stringify(invited.body)).toBe(201);
      expect((await server.call('POST', '/api/tokens', { token, body: { name: 'CI', scopes: ['read'] } })).status).toBe(
        201,
      );

      const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name }).waitFor();
      const screens: Screen[] = [
        { name: 'sign in', path: '/signin', signedOut: true, ready: (page) => heading(page, 'Sign in') },
        { name: 'sign up', path: '/signup', signedOut: true, ready: (page) => heading(page, 'Create your account') },
        { name: 'forgot password', path: '/forgot-password', signedOut: true, ready: (page) => heading(page, /./) },
        {
          name: 'reset password',
          path: `/reset-password/${'r'.repeat(37)}`,
          signedOut: true,
          ready: (page) => heading(page, /./),
        },
        {
          name: 'invitation',
          path: `/invitations/${'i'.repeat(37)}`,
          signedOut: true,
          ready: (page) => heading(page, /./),
        },
        {
          name: 'overview',
          path: '/',
          ready: (page) =>
            Promise.all([
              page.locator('[data-total="failedRequests"] dd').getByText('12').waitFor(),
              page.locator('[data-outcome="accepted"] .outcome-count').getByText('13').waitFor(),
              page.locator('svg rect.chart-requests').waitFor(),
            ]),
        },
        { name: 'issues', path: '/issues', ready: (page) => page.locator('table.issues tbody tr').first().waitFor() },
        {
          name: 'issue',
          path: `/issues/${encodeURIComponent(issueId)}`,
          ready: (page) => page.locator('table.events tbody tr').first().waitFor(),
        },
        { name: 'apps', path: '/apps', ready: (page) => page.getByRole('link', { name: 'Shop' }).first().waitFor() },
        { name: 'app', path: `/apps/${app.appKey}`, ready: (page) => page.locator('[data-app-key]').waitFor() },
        {
          name: 'alerts',
          path: `/apps/${app.appKey}/alerts`,
          ready: (page) => page.locator('table.deliveries tbody tr').first().waitFor(),
        },
        {
          name: 'releases',
          path: `/apps/${app.appKey}/releases`,
          ready: (page) => page.locator('table.releases tbody tr').first().waitFor(),
        },
        { name: 'team', path: '/team', ready: (page) => page.locator('code.invitation-link, table').first().waitFor() },
        { name: 'tokens', path: '/tokens', ready: (page) => page.getByText('CI', { exact: true }).first().waitFor() },
        { name: 'not found', path: '/nothing/here/at/all', ready: (page) => heading(page, /./) },
      ];

      const found: Record<string, string[]> = {};
      for (const signedIn of [false, true]) {
        const context = await browser.newContext({ viewport, colorScheme, locale: 'en-US', timezoneId: 'UTC' });
        if (signedIn)
          await context.addInitScript(`sessionStorage.setItem('collector.session', ${JSON.stringify(token)})`);
        const page = await context.newPage();
        page.setDefaultTimeout(15_000);
        for (const screen of screens.filter((each) => !each.signedOut === signedIn)) {
          await page.goto(`${base}${screen.path}`);
          await screen.ready(page);
          found[screen.name] = await violations(page);
        }
        await context.close();
      }
      expect(Object.keys(found)).toHaveLength(screens.length);
      expect(Object.fromEntries(Object.entries(found).filter(([, list]) => list.length > 0))).toEqual({});
    },
    180_000,
  );
});
