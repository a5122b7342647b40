// The one way the tests start a browser. Kept apart from the harness, which imports vitest: the Sentry clients
// (sentry-clients.ts) also run outside vitest, from fixtures/sentry/capture.ts.
import type { Browser } from 'playwright-core';

/**
 * Headless chromium through playwright-core: Debian's, or CHROMIUM_PATH's. It starts none of a new profile's
 * background traffic (updates, sync), so a test sees only the requests its pages make.
 */
export async function launchChromium(): Promise<Browser> {
  // Loaded here, not by every test file that imports the harness (which starts browsers through this).
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}
