// Frames a source map mapped (issue 22) on the issue page, in a real browser: the original function, file:line:column
// and source context with the throwing line marked, the "Minified" toggle (only on mapped events) showing the frames
// as the browser sent them, library frames still folded, the note when symbolication left frames as sent, and axe
// on the page with the toggle on. Events come through the batch endpoint, whose frames may carry `raw` already.
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
beforeAll(async () => {
  browser = await launchDashboardBrowser();
}, 180_000);
afterAll(() => browser?.close());

const bundle = 'https://shop.example/assets/app.min.js';

/** A minified app's error as symbolication stores it: original frames, each with its raw form; innermost first. */
const mappedEvent = () =>
  makeEvent({
    message: 'cart is undefined',
    stack: undefined,
    release: 'shop@2.0.0',
    symbolication: { state: 'mapped' },
    exceptions: [
      {
        type: 'TypeError',
        value: 'cart is undefined',
        mechanism: { type: 'onerror', handled: false },
        frames: [
          {
            function: 'renderCart',
            file: 'src/cart.js',
            absPath: 'webpack://shop/src/cart.js',
            line: 14,
            column: 11,
            inApp: true,
            preContext: ['export function renderCart(cart) {', '  const items = cart.items;'],
            contextLine: '  if (!cart.ready) throw new TypeError("cart is undefined");',
            postContext: ['  return items.length;', '}'],
            raw: { function: 'oh', file: 'app.min.js', absPath: bundle, line: 1, column: 3456 },
          },
          {
            function: 'onCheckout',
            file: 'src/checkout.js',
            absPath: 'webpack://shop/src/checkout.js',
            line: 6,
            column: 3,
            inApp: true,
            contextLine: '  renderCart(state.cart);',
            raw: { function: 'lh', file: 'app.min.js', absPath: bundle, line: 1, column: 2210 },
          },
          {
            function: 'dispatchEvent',
            file: 'node_modules/framework/events.js',
            line: 88,
            column: 5,
            inApp: false,
            raw: { function: 'Yt', file: 'app.min.js', absPath: bundle, line: 1, column: 120 },
          },
        ],
      },
    ],
  });

/** An event whose frames stayed as sent, and what symbolication said. */
const unmappedEvent = (message: string, symbolication: Record<string, string>) =>
  makeEvent({
    message,
    stack: undefined,
    symbolication,
    frames: [{ function: 'oh', file: 'app.min.js', absPath: bundle, line: 1, column: 3456, inApp: true }],
  });

/** axe's violations on the page as it is now, one line each: the rule and the elements it found. */
async function violations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's CSP (script-src 'self') does not govern.
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(axe.source);
  return page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((result) =>
    result.violations.map((each) => each.id + ': ' + each.nodes.map((node) => node.target.join(' ')).join(', ')))`);
}

describe(`mapped frames on the issue page (${backend})`, () => {
  it('shows the original frames with context, toggles to the minified ones, and says when no map applied', async () => {
    const { token } = await signUp(server);
    const app = await createApp(server, token, { name: 'Shop', type: 'web' });
    const notes = {
      'no map here': { state: 'missing' },
      'too slow to map': { state: 'timeout', detail: 'gave up after 500 ms' },
      'map was broken': { state: 'error', detail: 'app.min.js.map: not a source map' },
    };
    const reply = await sendBatch(server, app.appKey, [
      mappedEvent(),
      ...Object.entries(notes).map(([message, symbolication]) => unmappedEvent(message, symbolication)),
    ]);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const { issues } = (await server.call('GET', `/api/issues?appKey=${app.appKey}`, { token })).body;
    const issueOf = (message: string) => issues.find((each: { message: string }) => each.message === message).id;

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    await context.addInitScript(`sessionStorage.setItem('collector.session', ${JSON.stringify(token)})`);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${base}/issues/${encodeURIComponent(issueOf('cart is undefined'))}`);
    const stack = page.getByRole('region', { name: 'Stack trace' });
    const frames = stack.getByRole('list', { name: 'Frames of TypeError' });
    await frames.waitFor();

    // Mapped: the original function, file:line:column and context, the throwing line marked and numbered.
    const first = frames.locator('> li').first();
    expect(await first.locator('.frame-function').textContent()).toBe('renderCart');
    expect(await first.locator('.frame-location code').textContent()).toBe('cart.js:14:11');
    await first.getByText('webpack://shop/src/cart.js').waitFor();
    expect(await first.locator('mark').textContent()).toBe(
      '14  if (!cart.ready) throw new TypeError("cart is undefined");\n',
    );
    expect(await first.locator('.line-number').allTextContents()).toEqual(['12', '13', '14', '15', '16']);
    // Each mapped frame says so, the folded library frame too.
    expect(await stack.locator('.frame-mapped').count()).toBe(3);
    expect(await stack.getByText('oh', { exact: true }).count()).toBe(0);
    // The library frame stays folded.
    await stack.getByText('1 library frame').waitFor();
    expect(await stack.getByText('dispatchEvent', { exact: true }).isVisible()).toBe(false);
    expect(await stack.locator('.symbolication-note').count()).toBe(0);

    // The toggle: a button that says whether it is on, showing the frames as sent, without the map's context.
    const toggle = stack.getByRole('button', { name: 'Minified' });
    expect(await toggle.getAttribute('aria-pressed')).toBe('false');
    await toggle.click();
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    await first.locator('.frame-function').getByText('oh', { exact: true }).waitFor();
    expect(await first.locator('.frame-location code').textContent()).toBe('app.min.js:1:3456');
    await first.getByText(bundle).waitFor();
    expect(await stack.locator('mark').count()).toBe(0);
    expect(await stack.getByText('renderCart').count()).toBe(0);
    expect(await frames.locator('> li.frame .frame-function').allTextContents()).toEqual(['oh', 'lh']);
    await stack.getByText('1 library frame').click();
    await stack.getByText('Yt', { exact: true }).waitFor();
    await page.screenshot({ path: `${artifacts}mapped-frames-minified.png`, fullPage: true });
    expect(await violations(page)).toEqual([]);
    // At a phone's width too, with the long minified URLs: nothing wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    expect(await violations(page)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 900 });
    await toggle.click();
    expect(await toggle.getAttribute('aria-pressed')).toBe('false');
    await first.locator('.frame-function').getByText('renderCart', { exact: true }).waitFor();
    await page.screenshot({ path: `${artifacts}mapped-frames.png`, fullPage: true });
    expect(await violations(page)).toEqual([]);

    // Unmapped events: no toggle (nothing to toggle to), and a plain note of why.
    const expected = {
      'no map here': 'No source map found for this release or debug ID',
      'too slow to map': 'gave up after 500 ms',
      'map was broken': 'app.min.js.map: not a source map',
    };
    for (const [message, text] of Object.entries(expected)) {
      await page.goto(`${base}/issues/${encodeURIComponent(issueOf(message))}`);
      const note = page.locator('.symbolication-note');
      await note.waitFor();
      expect(await note.textContent()).toContain(text);
      expect(await page.getByRole('button', { name: 'Minified' }).count()).toBe(0);
      await page.locator('.frame-function').getByText('oh', { exact: true }).waitFor();
    }
    expect(await violations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
