// Alerts through HTTP: rules, and webhooks that arrive once, signed, within 5 s of the batch's 200.
import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { backend, createApp, makeEvent, sendBatch, signUp, startTestServer } from './harness';
import { startReceiver } from './webhook-receiver';

const PUBLIC_URL = 'https://collector.example.com';
const server = await startTestServer({
  alerts: { allowPrivateNetworks: true, pollMs: 100, firstRetryMs: 300, publicUrl: PUBLIC_URL },
});
const receiver = await startReceiver();
afterAll(() => receiver.close());
const { token } = await signUp(server);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const issueEvent = (fingerprint: string) => makeEvent({ fingerprint, message: `broke ${fingerprint}` });

async function newApp(name = 'Shop') {
  return createApp(server, token, { name });
}

/** A rule whose webhooks go to the test's receiver (or to `url`). */
async function createAlert(appKey: string, rule: { trigger: string; spike?: unknown }, url = receiver.url) {
  const body = { ...rule, channel: { type: 'webhook', url } };
  const reply = await server.call('POST', `/api/apps/${appKey}/alerts`, { token, body });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.alert;
}

async function deliveries(appKey: string) {
  const reply = await server.call('GET', `/api/apps/${appKey}/alerts/deliveries`, { token });
  expect(reply.status).toBe(200);
  return reply.body.deliveries;
}

async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > deadline) return value;
    await sleep(100);
  }
}

describe('alert rules', () => {
  it('are created with a secret, listed and deleted', async () => {
    const { appKey } = await newApp();
    const alert = await createAlert(appKey, { trigger: 'new_issue' });
    expect(alert).toEqual({
      id: expect.stringMatching(/^alert_[a-z0-9]{20}$/),
      trigger: 'new_issue',
      spike: null,
      channel: { type: 'webhook', url: receiver.url },
      secret: expect.stringMatching(/^whsec_[a-z0-9]{40}$/),
      createdAt: expect.any(Number),
    });
    const spike = await createAlert(appKey, { trigger: 'spike', spike: { events: 100, minutes: 60 } });
    expect(spike.spike).toEqual({ events: 100, minutes: 60 });

    const listed = await server.call('GET', `/api/apps/${appKey}/alerts`, { token });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ alerts: [alert, spike] });

    const deleted = await server.call('DELETE', `/api/apps/${appKey}/alerts/${alert.id}`, { token });
    expect(deleted.status).toBe(204);
    expect((await server.call('GET', `/api/apps/${appKey}/alerts`, { token })).body.alerts).toEqual([spike]);
    expect((await server.call('DELETE', `/api/apps/${appKey}/alerts/${alert.id}`, { token })).status).toBe(404);
  });
});

describe('a new issue', () => {
  it('sends exactly one signed webhook within 5 s of the batch’s 200, and a second event of the issue none', async () => {
    const app = await newApp('Checkout');
    const alert = await createAlert(app.appKey, { trigger: 'new_issue' });
    const before = receiver.received.length;
    const fingerprint = `TypeError:${randomUUID().slice(0, 8)}`;

    const reply = await sendBatch(server, app.appKey, [issueEvent(fingerprint), issueEvent(fingerprint)]);
    expect(reply.status).toBe(200);
    const answeredAt = Date.now();
    const [webhook] = (await receiver.waitFor(before + 1, 5_000)).slice(before);
    expect(webhook?.at).toBeLessThanOrEqual(answeredAt + 5_000);
    if (!webhook) throw new Error('no webhook');

    const issueId = `${app.appKey}:${fingerprint}`;
    expect(webhook.headers['content-type']).toBe('application/json');
    expect(webhook.headers['x-collector-signature']).toBe(
      `sha256=${createHmac('sha256', alert.secret).update(webhook.raw).digest('hex')}`,
    );
    expect(webhook.body).toEqual({
      id: webhook.headers['x-collector-delivery'],
      trigger: 'new_issue',
      app: { appKey: app.appKey, name: 'Checkout' },
      issue: expect.objectContaining({
        id: issueId,
        appKey: app.appKey,
        fingerprint,
        eventCount: 2,
        message: `broke ${fingerprint}`,
      }),
      url: `${PUBLIC_URL}/issues/${encodeURIComponent(issueId)}`,
    });

    expect((await sendBatch(server, app.appKey, [issueEvent(fingerprint)])).status).toBe(200);
    await sleep(1_000);
    expect(receiver.received.length).toBe(before + 1);

    const [delivery, ...others] = await until(
      () => deliveries(app.appKey),
      (rows) => rows[0]?.status === 'delivered',
    );
    expect(others).toEqual([]);
    expect(delivery).toEqual({
      id: webhook.body.id,
      alertId: alert.id,
      trigger: 'new_issue',
      issueId,
      status: 'delivered',
      attempts: 1,
      lastError: null,
      createdAt: expect.any(Number),
      deliveredAt: expect.any(Number),
    });
  });

  it('is retried when the receiver fails: 500 then 204 is two attempts with one delivery id, then delivered', async () => {
    const app = await newApp();
    await createAlert(app.appKey, { trigger: 'new_issue' });
    const before = receiver.received.length;
    receiver.answers.push(500);
    expect((await sendBatch(server, app.appKey, [issueEvent(`Error:${randomUUID().slice(0, 8)}`)])).status).toBe(200);
    const attempts = (await receiver.waitFor(before + 2, 10_000)).slice(before);
    expect(attempts[0]?.headers['x-collector-delivery']).toBe(attempts[1]?.headers['x-collector-delivery']);
    expect(attempts[0]?.raw).toBe(attempts[1]?.raw);
    const rows = await until(
      () => deliveries(app.appKey),
      (each) => each[0]?.status === 'delivered',
    );
    expect(rows).toEqual([
      expect.objectContaining({
        id: attempts[0]?.headers['x-collector-delivery'],
        status: 'delivered',
        attempts: 2,
        lastError: 'HTTP 500: receiver says no',
      }),
    ]);
  });

  it('alerts each rule of the app, and no rule of another app', async () => {
    const app = await newApp();
    const other = await newApp();
    const first = await createAlert(app.appKey, { trigger: 'new_issue' });
    const second = await createAlert(app.appKey, { trigger: 'new_issue' }, `${receiver.url}?second`);
    await createAlert(app.appKey, { trigger: 'regression' });
    await createAlert(other.appKey, { trigger: 'new_issue' });
    const before = receiver.received.length;
    expect(
      (await sendBatch(server, app.appKey, [issueEvent('TypeError:one'), issueEvent('TypeError:two')])).status,
    ).toBe(200);
    await receiver.waitFor(before + 4, 5_000);
    await sleep(500);
    expect(receiver.received.length).toBe(before + 4);
    const rows = await until(
      () => deliveries(app.appKey),
      (each) => each.length === 4 && each.every((row: { status: string }) => row.status === 'delivered'),
    );
    expect(
      rows
        .map(
          (row: { alertId: string; issueId: string }) =>
            `${row.alertId === first.id ? 1 : row.alertId === second.id ? 2 : 0} ${row.issueId.split(':').slice(1).join(':')}`,
        )
        .sort(),
    ).toEqual(['1 TypeError:one', '1 TypeError:two', '2 TypeError:one', '2 TypeError:two']);
    expect(await deliveries(other.appKey)).toEqual([]);
  });
});

describe('several collector processes on one database', () => {
  // Two services with their own pools and workers (as two processes would have) on the same PostgreSQL database; the
  // embedded database belongs to one process.
  it.runIf(backend === 'postgres')('send each delivery once', async () => {
    const other = await startTestServer({ alerts: { allowPrivateNetworks: true, pollMs: 50, publicUrl: PUBLIC_URL } });
    const app = await newApp();
    await createAlert(app.appKey, { trigger: 'new_issue' });
    await createAlert(app.appKey, { trigger: 'new_issue' });
    const before = receiver.received.length;
    const fingerprints = Array.from({ length: 30 }, (_, i) => `Error:multi${i}`);
    await Promise.all(
      fingerprints.map((fingerprint, i) =>
        sendBatch(i % 2 === 0 ? server : other, app.appKey, [issueEvent(fingerprint)]),
      ),
    );
    await receiver.waitFor(before + 60, 10_000);
    await sleep(1_000);
    const ids = receiver.received.slice(before).map((webhook) => webhook.headers['x-collector-delivery']);
    expect(ids).toHaveLength(60);
    expect(new Set(ids).size).toBe(60);
  });
});

describe('a spike', () => {
  it('alerts once when an issue reaches the rule’s events within its minutes, and not again in that window', async () => {
    const app = await newApp();
    const alert = await createAlert(app.appKey, { trigger: 'spike', spike: { events: 3, minutes: 10 } });
    const hot = `Error:${randomUUID().slice(0, 8)}`;
    const before = receiver.received.length;
    // Two events of the issue, and three of three different issues: below the threshold each.
    await sendBatch(server, app.appKey, [
      issueEvent(hot),
      issueEvent(hot),
      issueEvent('A:a'),
      issueEvent('B:b'),
      issueEvent('C:c'),
    ]);
    await sleep(800);
    expect(receiver.received.length).toBe(before);

    await sendBatch(server, app.appKey, [issueEvent(hot)]);
    const [webhook] = (await receiver.waitFor(before + 1, 5_000)).slice(before);
    expect(webhook?.body).toMatchObject({ trigger: 'spike', issue: { id: `${app.appKey}:${hot}`, eventCount: 3 } });
    expect(webhook?.headers['x-collector-signature']).toBe(
      `sha256=${createHmac('sha256', alert.secret)
        .update(webhook?.raw ?? '')
        .digest('hex')}`,
    );

    // Still within the window: more events make no second alert.
    await sendBatch(server, app.appKey, [issueEvent(hot), issueEvent(hot), issueEvent(hot), issueEvent(hot)]);
    await sleep(800);
    expect(receiver.received.length).toBe(before + 1);
    expect((await deliveries(app.appKey)).map((row: { trigger: string }) => row.trigger)).toEqual(['spike']);
  });

  it('fires for a batch that alone holds enough events', async () => {
    const app = await newApp();
    await createAlert(app.appKey, { trigger: 'spike', spike: { events: 5, minutes: 1 } });
    const before = receiver.received.length;
    await sendBatch(
      server,
      app.appKey,
      Array.from({ length: 5 }, () => issueEvent('RangeError:burst')),
    );
    const [webhook] = (await receiver.waitFor(before + 1, 5_000)).slice(before);
    expect(webhook?.body).toMatchObject({ trigger: 'spike', issue: { eventCount: 5 } });
  });
});

describe('send a test', () => {
  it('sends a signed sample through the rule at once and answers with the delivery', async () => {
    const app = await newApp('Tested');
    const alert = await createAlert(app.appKey, { trigger: 'regression' });
    const before = receiver.received.length;
    const reply = await server.call('POST', `/api/apps/${app.appKey}/alerts/${alert.id}/test`, { token });
    expect(reply.status).toBe(200);
    expect(reply.body.delivery).toMatchObject({
      alertId: alert.id,
      trigger: 'test',
      issueId: null,
      status: 'delivered',
      attempts: 1,
    });
    const webhook = receiver.received[before];
    expect(webhook?.body).toMatchObject({
      id: reply.body.delivery.id,
      trigger: 'test',
      app: { appKey: app.appKey, name: 'Tested' },
    });
    // The sample issue exists nowhere, so the link is to the app's issue list, which does.
    const link = new URL(webhook?.body.url);
    expect(`${link.pathname}${link.search}`).toBe(`/issues?app=${app.appKey}`);
    expect(
      (await server.call('GET', `/api/issues/${encodeURIComponent(webhook?.body.issue.id)}`, { token })).status,
    ).toBe(404);
    expect((await server.call('GET', `/api/issues?appKey=${app.appKey}`, { token })).status).toBe(200);
    expect(webhook?.headers['x-collector-signature']).toBe(
      `sha256=${createHmac('sha256', alert.secret)
        .update(webhook?.raw ?? '')
        .digest('hex')}`,
    );
  });

  it('reports a receiver that fails, without retrying', async () => {
    const app = await newApp();
    const alert = await createAlert(app.appKey, { trigger: 'new_issue' });
    receiver.answers.push(503);
    const reply = await server.call('POST', `/api/apps/${app.appKey}/alerts/${alert.id}/test`, { token });
    expect(reply.status).toBe(200);
    expect(reply.body.delivery).toMatchObject({
      status: 'failed',
      attempts: 1,
      lastError: 'HTTP 503: receiver says no',
    });
  });
});

// Regressions come from triage: PATCH /api/issues/:id { status: 'resolved' }, then a new event reopens the issue.
describe('a regression', () => {
  it('alerts once when a resolved issue has a new event', async () => {
    const app = await newApp();
    await createAlert(app.appKey, { trigger: 'regression' });
    const fingerprint = `Error:${randomUUID().slice(0, 8)}`;
    await sendBatch(server, app.appKey, [issueEvent(fingerprint)]);
    const before = receiver.received.length;
    const issueId = `${app.appKey}:${fingerprint}`;
    const resolved = await server.call('PATCH', `/api/issues/${encodeURIComponent(issueId)}`, {
      token,
      body: { status: 'resolved' },
    });
    expect(resolved.status).toBe(200);
    await sendBatch(server, app.appKey, [issueEvent(fingerprint), issueEvent(fingerprint)]);
    const [webhook] = (await receiver.waitFor(before + 1, 5_000)).slice(before);
    expect(webhook?.body).toMatchObject({ trigger: 'regression', issue: { id: issueId, status: 'unresolved' } });
    await sendBatch(server, app.appKey, [issueEvent(fingerprint)]);
    await sleep(800);
    expect(receiver.received.length).toBe(before + 1);
  });
});
