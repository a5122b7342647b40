// The issue list's search box in a real browser (Debian chromium through playwright-core): tag values suggested from
// the facets and picked with the keyboard, the terms as chips that filter the list and are removed again, a
// malformed query's message from the parser the API uses, and a link's search shown as chips; axe over it all.
import axe from 'axe-core';
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

const server = await startTestServer();
const base = server.url.replace('localhost', '127.0.0.1');

let browser: Browser;
let page: Page;
const listRequests: string[] = [];
const browserErrors: string[] = [];

const owner = await signUp(server);
const app = await createApp(server, owner.token, { name: 'Shop' });
const t = Date.now() - 60_000;
const sent = await sendBatch(server, app.appKey, [
  makeEvent({
    fingerprint: 'js:gold',
    message: 'Gold checkout fails',
    timestamp: t,
    tags: { tier: 'gold', tenant: 'acme' },
  }),
  makeEvent({
    fingerprint: 'js:silver',
    message: 'Silver cart breaks',
    timestamp: t + 1,
    tags: { tier: 'silver', tenant: 'globex' },
  }),
  makeEvent({ fingerprint: 'js:plain', message: 'Plain failure', timestamp: t + 2 }),
]);
expect(sent.body.accepted).toBe(3);

beforeAll(async () => {
  browser = await launchDashboardBrowser();
  const context = await browser.newContext({
    viewport: { width: 1280, height: 860 },
    locale: 'en-US',
    timezoneId: 'UTC',
  });
  await context.addInitScript(`sessionStorage.setItem('collector.session', ${JSON.stringify(owner.token)})`);
  page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on('request', (request) => {
    // tRPC batches calls: issues.list may share a request with others.
    if (new URL(request.url()).pathname.includes('issues.list')) listRequests.push(request.url());
  });
  page.on('pageerror', (error) => browserErrors.push(`page error: ${error.message}`));
}, 180_000);

afterAll(() => browser?.close());

const box = () => page.getByRole('combobox', { name: 'Search' });
const options = () => page.getByRole('listbox', { name: 'Suggestions' }).getByRole('option');
const chips = () => page.getByRole('list', { name: 'Search terms' }).getByRole('listitem');
const chipTexts = () => texts(chips().locator('.chip-text'));
const rows = () => page.locator('table.issues tbody tr');

/** Waits until `read` gives what is expected (playwright-core has no auto-waiting expect). */
async function until<T>(read: () => Promise<T>, expected: T, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await read();
    if (JSON.stringify(last) === JSON.stringify(expected)) return;
    await page.waitForTimeout(100);
  }
  throw new Error(`expected ${JSON.stringify(expected)}, saw ${JSON.stringify(last)}`);
}

const texts = async (locator: ReturnType<Page['locator']>) =>
  (await locator.allTextContents()).map((text) => text.trim());
const messages = ['Gold checkout fails', 'Silver cart breaks', 'Plain failure'];
/** The listed issues' messages (a row's link holds its error type and culprit too). */
const listed = async () =>
  (await texts(rows().locator('.issue-link'))).map((text) => messages.find((each) => text.includes(each)) ?? text);
const focusedLabel = () => page.evaluate('document.activeElement?.getAttribute("role")');

async function violations(): Promise<string[]> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(axe.source);
  return page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((result) =>
    result.violations.map((each) => each.id + ': ' + each.nodes.map((node) => node.target.join(' ')).join(', ')))`);
}

describe(`the issue list's search box (${backend})`, () => {
  it('suggests keys and a tag’s values, picks one with the keyboard as a chip that filters the list', async () => {
    await page.goto(`${base}/issues?app=${app.appKey}`);
    await until(async () => (await listed()).length, 3);
    expect(await box().getAttribute('placeholder')).toContain('is:unresolved level:error tenant:acme');
    expect(await box().getAttribute('aria-expanded')).toBe('false');

    // A key: the built-in ones and the app's tag keys that start so (as many issues each: in order).
    await box().click();
    await box().pressSequentially('t');
    await until(() => texts(options()), ['tenant:tag', 'tier:tag']);
    expect(await box().getAttribute('aria-expanded')).toBe('true');
    await page.keyboard.press('Escape');
    expect(await box().getAttribute('aria-expanded')).toBe('false');
    await box().fill('');

    // Its values, once the key is typed; the commonest first, then in order.
    await box().pressSequentially('tier:');
    await until(() => texts(options()), ['gold', 'silver']);
    expect(await violations()).toEqual([]);
    await page.screenshot({ path: `${artifacts}search-box-suggestions.png`, fullPage: true });
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    const active = await box().getAttribute('aria-activedescendant');
    expect(await page.locator(`[id="${active}"]`).textContent()).toBe('silver');
    expect(await page.locator(`[id="${active}"]`).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('Enter');

    await until(chipTexts, ['tier:silver']);
    await until(listed, ['Silver cart breaks']);
    expect(new URL(page.url()).searchParams.get('q')).toBe('tier:silver');
    expect(await box().inputValue()).toBe('');
    // The list was drawn afresh for the new address: typing goes on in the box.
    expect(await focusedLabel()).toBe('combobox');
    expect(await violations()).toEqual([]);
    await page.screenshot({ path: `${artifacts}search-box-chip.png`, fullPage: true });

    // Removed, the chip's term no longer filters.
    await page.getByRole('button', { name: 'Remove tier:silver' }).click();
    await until(async () => (await listed()).length, 3);
    expect(await chips().count()).toBe(0);
    expect(new URL(page.url()).searchParams.get('q')).toBeNull();
  });

  it('makes chips of terms ended by a space, keeps free text as text, and excludes with !', async () => {
    await page.goto(`${base}/issues?app=${app.appKey}`);
    await until(async () => (await listed()).length, 3);
    await box().click();
    await box().pressSequentially('!tenant:acme breaks ');
    await until(chipTexts, ['!tenant:acme']);
    expect(await box().inputValue()).toBe('breaks ');
    await page.keyboard.press('Enter');
    await until(listed, ['Silver cart breaks']);
    expect(new URL(page.url()).searchParams.get('q')).toBe('!tenant:acme breaks');
    expect(await chips().first().getAttribute('class')).toContain('chip-negated');
    expect(await box().inputValue()).toBe('breaks');
  });

  it('shows a malformed query’s message from the parser, and asks the API nothing', async () => {
    await page.goto(`${base}/issues?app=${app.appKey}`);
    await until(async () => (await listed()).length, 3);
    const asked = listRequests.length;
    await box().click();
    await box().pressSequentially('is:bogus');
    await page.keyboard.press('Enter');
    await until(
      () => texts(page.getByRole('alert')),
      ['is:bogus: is:bogus is unknown; is: takes unresolved, resolved, ignored, archived, assigned or unassigned'],
    );
    expect(new URL(page.url()).searchParams.get('q')).toBe('is:bogus');
    expect(await box().getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByText('Could not load the issues').count()).toBe(0);
    expect(await rows().count()).toBe(0);
    expect(listRequests.length).toBe(asked);
    expect(await violations()).toEqual([]);
    await page.screenshot({ path: `${artifacts}search-box-fault.png`, fullPage: true });
  });

  it('shows a link’s search as chips and its free text as text', async () => {
    await page.goto(`${base}/issues?app=${app.appKey}&q=${encodeURIComponent('tenant:acme Gold')}`);
    await until(listed, ['Gold checkout fails']);
    expect(await chipTexts()).toEqual(['tenant:acme']);
    expect(await box().inputValue()).toBe('Gold');
    // Backspace in the empty box takes the last chip back as text, to edit it.
    await box().fill('');
    await box().press('Backspace');
    expect(await box().inputValue()).toBe('tenant:acme');
    expect(await chips().count()).toBe(0);
    expect(browserErrors).toEqual([]);
  });
});
