// A team in a real browser (Debian chromium through playwright-core), at desktop and phone width: the owner invites
// a colleague from the Team page, the colleague registers through the link, sees the team's issues, takes one,
// comments on it and resolves it; and a token made on the Tokens page is shown once.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dashboardArtifacts as artifacts,
  backend,
  createApp,
  launchDashboardBrowser,
  makeEvent,
  PASSWORD,
  sendBatch,
  signUp,
  startTestServer,
  uniqueEmail,
} from './harness';

const server = await startTestServer();
const base = server.url.replace('localhost', '127.0.0.1');

let browser: Browser;
beforeAll(async () => {
  browser = await launchDashboardBrowser();
}, 180_000);
afterAll(() => browser?.close());

const widths = [
  { name: 'desktop', viewport: { width: 1280, height: 900 } },
  { name: 'phone', viewport: { width: 390, height: 844 } },
];

async function newPage(viewport: { width: number; height: number }) {
  const context = await browser.newContext({ viewport, locale: 'en-US', timezoneId: 'UTC' });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

describe.each(widths)(`a team in the dashboard, $name (${backend})`, ({ name, viewport }) => {
  it('invites a colleague who registers through the link, takes an issue, comments and resolves it', async () => {
    const owner = await signUp(server);
    const app = await createApp(server, owner.token, { name: 'Shop' });
    await sendBatch(server, app.appKey, [
      makeEvent({ fingerprint: 'js:team', message: 'Checkout button does nothing' }),
    ]);
    const issueId = `${app.appKey}:js:team`;

    const ownerPage = await newPage(viewport);
    await ownerPage.goto(`${base}/signin`);
    await ownerPage.evaluate(`sessionStorage.setItem('collector.session', ${JSON.stringify(owner.token)})`);
    await ownerPage.goto(`${base}/team`);
    await ownerPage.getByRole('heading', { level: 1, name: /^Team/ }).waitFor();
    const colleagueEmail = uniqueEmail();
    await ownerPage.getByLabel('E-mail').fill(colleagueEmail);
    await ownerPage.locator('form select[name=role]').selectOption('member');
    await ownerPage.getByRole('button', { name: 'Invite' }).click();
    const link = await ownerPage.locator('code.invitation-link').textContent();
    expect(link).toMatch(/\/invitations\/[a-z0-9]{37}$/);
    await ownerPage.getByRole('button', { name: 'Revoke' }).waitFor();
    await ownerPage.screenshot({ path: `${artifacts}team-${name}.png`, fullPage: true });

    // The colleague follows the link, signed out: the sign-up form takes the invitation.
    const page = await newPage(viewport);
    await page.goto(`${base}${new URL(link as string).pathname}`);
    await page.getByRole('heading', { level: 1, name: 'Join your team' }).waitFor();
    await page.getByLabel('E-mail').fill(colleagueEmail);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { level: 1, name: 'Issues' }).waitFor();
    await page
      .getByRole('link', { name: /Checkout button does nothing/ })
      .first()
      .click();

    // Takes it, comments, resolves.
    await page.getByRole('button', { name: 'Take it' }).click();
    await page.getByLabel('Assigned to').and(page.locator(':not([disabled])')).waitFor();
    await page.getByText(`Assigned it to ${colleagueEmail}`).waitFor();
    await page.getByLabel('Comment').fill('Looking into it: the click handler is never bound.');
    await page.getByRole('button', { name: 'Comment', exact: true }).click();
    await page.getByText('Looking into it: the click handler is never bound.').waitFor();
    await page.getByRole('button', { name: 'Resolve' }).first().click();
    await page.getByText('Changed the status from unresolved to resolved').waitFor();
    await page.screenshot({ path: `${artifacts}issue-work-${name}.png`, fullPage: true });

    const issue = (await server.call('GET', `/api/issues/${issueId}`, { token: owner.token })).body.issue;
    expect(issue.status).toBe('resolved');
    expect(issue.assignee.email).toBe(colleagueEmail);
    const activity = (await server.call('GET', `/api/issues/${issueId}/activity`, { token: owner.token })).body
      .activity;
    expect(activity.map((entry: { type: string }) => entry.type)).toEqual([
      'status',
      'comment',
      'assignee',
      'first_seen',
    ]);
    // The issues assigned to the colleague, whatever their status.
    await page.goto(`${base}/issues?status=all`);
    await page.getByLabel('Assigned to').selectOption('me');
    await page
      .getByRole('link', { name: /Checkout button does nothing/ })
      .first()
      .waitFor();
    expect(page.url()).toContain('assignee=me');
    // The overview covers one organization at a time: the colleague's own (empty), or the team's when chosen.
    await page.goto(`${base}/?range=all`);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.getByLabel('App').selectOption({ label: `All apps of ${owner.email}` });
    await page.locator('[data-total=events] dd', { hasText: '1' }).waitFor();
    expect(page.url()).toContain('org=');
    // The document never scrolls sideways, even at phone width.
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
  });

  it('creates a token on the Tokens page and shows its value once', async () => {
    const user = await signUp(server);
    const page = await newPage(viewport);
    await page.goto(`${base}/signin`);
    await page.evaluate(`sessionStorage.setItem('collector.session', ${JSON.stringify(user.token)})`);
    await page.goto(`${base}/tokens`);
    await page.getByRole('heading', { level: 1, name: 'API tokens' }).waitFor();
    await page.getByLabel('Name').fill('CI');
    await page.getByRole('button', { name: 'Create token' }).click();
    const value = await page.locator('code.token-value').textContent();
    expect(value).toMatch(/^sntryu_[0-9a-f]{64}$/);
    await page.getByRole('button', { name: 'Copy token' }).waitFor();
    expect((await server.call('GET', '/api/auth/me', { token: value as string })).status).toBe(200);
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('No tokens yet').waitFor();
    expect((await server.call('GET', '/api/auth/me', { token: value as string })).status).toBe(401);
  });
});
