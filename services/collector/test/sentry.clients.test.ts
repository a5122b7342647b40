// The real Sentry SDKs, unmodified, against the real service: @sentry/browser in Chromium on a page of another origin
// (CORS for real), @sentry/node in a child process (its >32 KiB event arrives gzipped), and Debian's python3-sentry-sdk
// posting gzipped JSON to /store/. What they sent must come out of the REST API as issues with the right counts.
import { describe, expect, it } from 'vitest';
import { createApp, signUp, startTestServer } from './harness';
import { runBrowserClient, runNodeClient, runPythonClient } from './sentry-clients';

const server = await startTestServer();

interface Issue {
  id: string;
  errorType: string;
  message: string;
  eventCount: number;
  userCount: number;
}

async function appFor(type: string) {
  const { token } = await signUp(server);
  const app = await createApp(server, token, { type });
  // The SDKs speak to 127.0.0.1, like the pages' origin, so nothing depends on how localhost resolves.
  return { token, app, dsn: app.dsn.replace('@localhost:', '@127.0.0.1:') };
}

async function issuesOf(token: string, appKey: string): Promise<Map<string, Issue>> {
  const reply = await server.call('GET', `/api/issues?appKey=${appKey}`, { token });
  expect(reply.status).toBe(200);
  return new Map((reply.body.issues as Issue[]).map((issue) => [issue.message, issue]));
}

async function eventsOf(token: string, issue: Issue | undefined) {
  if (!issue) throw new Error('no such issue');
  return (await server.call('GET', `/api/issues/${encodeURIComponent(issue.id)}`, { token })).body.events as Array<
    Record<string, any>
  >;
}

describe('real Sentry SDKs through HTTP', () => {
  it('@sentry/node: errors, a message, a client fingerprint and a gzipped event over 32 KiB', async () => {
    const { token, app, dsn } = await appFor('node');
    await runNodeClient(dsn);
    const issues = await issuesOf(token, app.appKey);
    expect([...issues.keys()].sort()).toEqual([
      'card declined for amount 1999',
      'cart too large to save',
      'inventory sync finished late',
      'refund exceeds charge',
    ]);
    for (const issue of issues.values()) expect(issue).toMatchObject({ eventCount: 1, userCount: 1 });
    const [charged] = await eventsOf(token, issues.get('card declined for amount 1999'));
    expect(charged).toMatchObject({
      errorType: 'TypeError',
      platform: 'node',
      release: 'shop-api@2.1.0',
      environment: 'staging',
      anonymousId: 'anon_node-user-7',
      level: 'error',
    });
    expect(charged?.frames[0]).toMatchObject({ function: 'chargeCard', inApp: true });
    expect(issues.get('inventory sync finished late')?.errorType).toBe('Message');

    // Run again: new events (new ids) of the same problems, so the same issues with two events each.
    await runNodeClient(dsn);
    const again = await issuesOf(token, app.appKey);
    expect(again.size).toBe(4);
    for (const issue of again.values()) expect(issue.eventCount).toBe(2);
  });

  it('python sentry-sdk 1.9.10: gzipped JSON to /store/ with X-Sentry-Auth', async () => {
    const { token, app, dsn } = await appFor('other');
    await runPythonClient(dsn);
    const issues = await issuesOf(token, app.appKey);
    expect(issues.get("invalid literal for int() with base 10: '12a'")).toMatchObject({
      errorType: 'ValueError',
      eventCount: 1,
      userCount: 1,
    });
    expect(issues.get('nightly export skipped')).toMatchObject({ errorType: 'Message', eventCount: 1 });
    const [invoice] = await eventsOf(token, issues.get("invalid literal for int() with base 10: '12a'"));
    expect(invoice).toMatchObject({ platform: 'python', release: 'billing@3.0.1', anonymousId: 'anon_py-user-3' });
    expect(invoice?.frames[0]).toMatchObject({ function: 'parse_invoice', file: 'python-client.py', inApp: true });
  });

  it('@sentry/browser in Chromium on another origin: uncaught error, unhandled rejection, captureMessage, failed fetch', async () => {
    const { token, app, dsn } = await appFor('web');
    const { pageErrors } = await runBrowserClient(dsn);
    expect(pageErrors).toHaveLength(2); // the uncaught error and the rejection, as the page saw them
    const issues = await issuesOf(token, app.appKey);
    expect(issues.get("Cannot read properties of undefined (reading 'items')")).toMatchObject({
      errorType: 'TypeError',
      eventCount: 1,
      userCount: 1,
    });
    expect(issues.get('payment declined')).toMatchObject({ errorType: 'Error', eventCount: 1 });
    expect(issues.get('checkout opened without items')).toMatchObject({ errorType: 'Message', eventCount: 1 });
    const [uncaught] = await eventsOf(token, issues.get("Cannot read properties of undefined (reading 'items')"));
    expect(uncaught).toMatchObject({
      type: 'error',
      platform: 'javascript',
      anonymousId: 'anon_browser-user-1',
      url: expect.stringMatching(/\/checkout\?step=2$/),
      userAgent: expect.stringMatching(/Chrome/),
    });
    expect(uncaught?.stack).toMatch(
      /^TypeError: Cannot read properties of undefined \(reading 'items'\)\n {4}at renderCart \(/,
    );
    const failed = [...issues.values()].find((issue) => issue.message.startsWith('HTTP Client Error'));
    const [request] = await eventsOf(token, failed);
    expect(request).toMatchObject({
      type: 'request',
      request: { method: 'GET', status: 500, url: expect.stringMatching(/\/api\/stock\?item=42$/) },
    });
  });
});
