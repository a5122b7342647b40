// Grouping version 2 through HTTP: short prefixed ids (Stripe's `ch_1001`) no longer split an issue per record, and a
// database whose issues were made under version 1 keeps them: an event whose fingerprint changed joins its old issue,
// makes no new one and fires no "new issue" alert (contract, "Sentry's event data", Grouping).

import { openDatabase, sql } from '@collector/db';
import { computeFingerprint } from '@collector/domain';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createApp, freshDatabase, makeEvent, sendBatch, signUp, startTestServer, type TestServer } from './harness';
import { dsnParts } from './sentry-fixtures';
import { startReceiver } from './webhook-receiver';

const chargeIds = Array.from({ length: 90 }, (_, i) => `ch_${1001 + i}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Issue {
  id: string;
  fingerprint: string;
  message: string;
  eventCount: number;
  groupingVersion: number | null;
}

async function issuesOf(server: TestServer, token: string, appKey: string): Promise<Issue[]> {
  const reply = await server.call('GET', `/api/issues?appKey=${appKey}`, { token });
  expect(reply.status).toBe(200);
  return reply.body.issues;
}

/** A Sentry event as an SDK posts it to /store/: an exception with a type and a value, no stack. */
async function sendSentry(server: TestServer, dsn: string, type: string, value: string) {
  const { projectId, publicKey } = dsnParts(dsn);
  const body = { exception: { values: [{ type, value }] }, platform: 'python', level: 'error' };
  const reply = await server.call('POST', `/api/${projectId}/store/?sentry_key=${publicKey}`, { body });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
}

const server = await startTestServer();

describe('grouping of short prefixed ids', () => {
  it('90 failed requests to /v2/charges/ch_1001 ... ch_1090 make one issue; another endpoint its own', async () => {
    const url = (id: string) => `https://api.shop.example/v2/charges/${id}`;
    // Under version 1 each charge would have been an issue of its own: what version 2 changes.
    const v1 = new Set(
      chargeIds.map((id) => computeFingerprint({ errorType: 'request', request: { method: 'POST', url: url(id) } }, 1)),
    );
    expect(v1.size).toBe(90);

    const { token } = await signUp(server);
    const app = await createApp(server, token);
    const failed = (target: string) =>
      makeEvent({
        type: 'request',
        errorType: undefined,
        message: undefined,
        stack: undefined,
        request: { method: 'POST', url: target, status: 402, durationMs: 120 },
      });
    // Three batches of 30, as SDKs flush them.
    for (let i = 0; i < 90; i += 30) {
      const reply = await sendBatch(
        server,
        app.appKey,
        chargeIds.slice(i, i + 30).map((id) => failed(url(id))),
      );
      expect(reply.status).toBe(200);
      expect(reply.body.accepted).toBe(30);
    }
    expect((await sendBatch(server, app.appKey, [failed('https://api.shop.example/v2/refunds/re_1001')])).status).toBe(
      200,
    );

    const issues = await issuesOf(server, token, app.appKey);
    expect(
      issues.map(({ message, eventCount }) => ({ message, eventCount })).sort((a, b) => b.eventCount - a.eventCount),
    ).toEqual([
      { message: 'POST https://api.shop.example/v2/charges/ch_1001 failed with 402', eventCount: 90 },
      { message: 'POST https://api.shop.example/v2/refunds/re_1001 failed with 402', eventCount: 1 },
    ]);
    // Version 3 groups unmapped events exactly as version 2 did (it differs only for source-mapped ones, issue 22).
    expect(issues.every((issue) => issue.groupingVersion === 3)).toBe(true);
  });

  it('90 failed requests reported by a Sentry SDK (its HTTP client integration) make one issue', async () => {
    const { token } = await signUp(server);
    const app = await createApp(server, token, { type: 'web' });
    const { projectId, publicKey } = dsnParts(app.dsn);
    // What @sentry/browser's httpClientIntegration sends for a failed fetch: version 1 grouped it by its URL.
    const failedFetch = (url: string) => ({
      exception: {
        values: [
          {
            type: 'Error',
            value: 'HTTP Client Error with status code: 402',
            mechanism: { type: 'auto.http.client.fetch', handled: false },
          },
        ],
      },
      request: { method: 'POST', url },
      contexts: { response: { status_code: 402 } },
      platform: 'javascript',
    });
    for (const id of [...chargeIds, 're_1001']) {
      const path = id.startsWith('ch_') ? `charges/${id}` : `refunds/${id}`;
      const body = failedFetch(`https://api.shop.example/v2/${path}`);
      const reply = await server.call('POST', `/api/${projectId}/store/?sentry_key=${publicKey}`, { body });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    }

    const issues = await issuesOf(server, token, app.appKey);
    expect(issues.map(({ eventCount }) => eventCount).sort((a, b) => b - a)).toEqual([90, 1]);
  });
});

describe('an upgrade from grouping version 1', () => {
  it('sends events whose fingerprint changed to their version 1 issue: no new issue, no new-issue alert', async () => {
    const database = await freshDatabase();
    const upgraded = await startTestServer({
      database,
      alerts: { allowPrivateNetworks: true, pollMs: 100, firstRetryMs: 300 },
    });
    const receiver = await startReceiver();
    onTestFinished(() => receiver.close());
    const { token } = await signUp(upgraded);
    const app = await createApp(upgraded, token, { type: 'other' });

    // The database as version 1 left it: an issue under its version 1 fingerprint, written by today's write path, and
    // marked as migration 0020 marks the issues it finds.
    const declined = (id: string) => ({
      errorType: 'CardError',
      message: `card declined for charge ${id}`,
      stack: undefined,
    });
    const oldFingerprint = computeFingerprint(declined('ch_1001'), 1);
    expect(computeFingerprint(declined('ch_1002'))).not.toBe(oldFingerprint);
    expect(computeFingerprint(declined('ch_1002'), 1)).toBe(oldFingerprint);
    const seeded = await sendBatch(upgraded, app.appKey, [
      makeEvent({ ...declined('ch_1001'), fingerprint: oldFingerprint }),
    ]);
    expect(seeded.status).toBe(200);
    const admin = await openDatabase({ url: database.url, maxConnections: 1 });
    try {
      await sql`update issues set grouping_version = 1 where app_key = ${app.appKey}`.execute(admin.db);
    } finally {
      await admin.close();
    }
    const alert = await upgraded.call('POST', `/api/apps/${app.appKey}/alerts`, {
      token,
      body: { trigger: 'new_issue', channel: { type: 'webhook', url: receiver.url } },
    });
    expect(alert.status).toBe(201);

    // After the upgrade: the same failure for other charges, through the batch endpoint and as a Sentry event.
    expect((await sendBatch(upgraded, app.appKey, [makeEvent(declined('ch_1002'))])).status).toBe(200);
    await sendSentry(upgraded, app.dsn, 'CardError', 'card declined for charge ch_1003');

    const [issue, ...others] = await issuesOf(upgraded, token, app.appKey);
    expect(others).toEqual([]);
    expect(issue).toMatchObject({ fingerprint: oldFingerprint, eventCount: 3, groupingVersion: 1 });
    const detail = await upgraded.call('GET', `/api/issues/${encodeURIComponent(issue?.id ?? '')}`, { token });
    expect(detail.body.events.map((event: { fingerprint: string }) => event.fingerprint)).toEqual([
      oldFingerprint,
      oldFingerprint,
      oldFingerprint,
    ]);

    // A failure that is new under either version is a new issue, and alerts: the rule and its webhooks work, so the
    // upgraded events' silence above is theirs.
    expect(
      (await sendBatch(upgraded, app.appKey, [makeEvent({ errorType: 'RefundError', message: 'refund re_77 failed' })]))
        .status,
    ).toBe(200);
    const [webhook] = await receiver.waitFor(1, 10_000);
    await sleep(1_000);
    expect(receiver.received).toHaveLength(1);
    expect(webhook?.body).toMatchObject({ trigger: 'new_issue', issue: { message: 'refund re_77 failed' } });
    expect(await issuesOf(upgraded, token, app.appKey)).toHaveLength(2);
  });
});
