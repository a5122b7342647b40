// The SSRF guard: without ALERTS_ALLOW_PRIVATE_NETWORKS, webhooks never reach loopback, private, link-local or
// unspecified addresses, neither at creation (400) nor at delivery (a rule that got past creation some other way).
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { sendWebhook } from '../src/alerts/webhook';
import { addressRefusal, checkedAddresses } from '../src/alerts/webhook-address';
import { createApp, makeEvent, sendBatch, signUp, startTestServer } from './harness';
import { startReceiver } from './webhook-receiver';

const server = await startTestServer({ alerts: { pollMs: 100 } });
const receiver = await startReceiver();
afterAll(() => receiver.close());
const { token } = await signUp(server);
const { appKey } = await createApp(server, token);
const port = new URL(receiver.url).port;

describe('creating a webhook rule', () => {
  it.each([
    `http://127.0.0.1:${port}/hook`,
    `http://localhost:${port}/hook`,
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.7/hook',
    'http://172.16.3.4/hook',
    'http://192.168.1.1/hook',
    'http://0.0.0.0/hook',
    'http://[::1]/hook',
    'http://[::]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[::ffff:a9fe:a9fe]/hook',
    'http://[fe80::1]/hook',
    'http://[fd12:3456::1]/hook',
    'http://100.64.0.1/hook',
    'http://2130706433/hook',
    'http://0x7f.1/hook',
  ])('refuses %s (400)', async (url) => {
    const reply = await server.call('POST', `/api/apps/${appKey}/alerts`, {
      token,
      body: { trigger: 'new_issue', channel: { type: 'webhook', url } },
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(400);
    expect(reply.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path: 'channel.url' }] });
    expect(reply.body.error.message).toMatch(/refused|resolve/);
  });

  it('refuses a host that does not resolve', async () => {
    const reply = await server.call('POST', `/api/apps/${appKey}/alerts`, {
      token,
      body: { trigger: 'new_issue', channel: { type: 'webhook', url: 'https://no-such-host.invalid/hook' } },
    });
    expect(reply.status).toBe(400);
  });
});

describe('at delivery', () => {
  it('checks the address again: a rule pointing at loopback sends nothing and records why', async () => {
    // A rule stored as if the guard had let it pass (created under ALERTS_ALLOW_PRIVATE_NETWORKS=true, say).
    await server.database.db
      .insertInto('alerts')
      .values({
        id: `alert_${randomUUID().replaceAll('-', '').slice(0, 20)}`,
        app_key: appKey,
        trigger: 'new_issue',
        spike_events: null,
        spike_minutes: null,
        channel: JSON.stringify({ type: 'webhook', url: `http://localhost:${port}/hook` }),
        secret: 'whsec_test',
        created_at: Date.now(),
      })
      .execute();
    expect((await sendBatch(server, appKey, [makeEvent({ fingerprint: 'Error:guarded' })])).status).toBe(200);
    let delivery: { attempts: number; lastError: string | null; status: string } | undefined;
    for (let i = 0; i < 50 && !delivery?.lastError; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      delivery = (await server.call('GET', `/api/apps/${appKey}/alerts/deliveries`, { token })).body.deliveries[0];
    }
    expect(delivery).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastError: expect.stringMatching(
        /127\.0\.0\.1 is a loopback address, refused|::1 is a loopback address, refused/,
      ),
    });
    expect(receiver.received).toEqual([]);
  });
});

describe('the guard itself', () => {
  it('passes public unicast addresses only', () => {
    expect(addressRefusal('93.184.215.14')).toBeUndefined();
    expect(addressRefusal('2606:4700::6810:84e5')).toBeUndefined();
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '169.254.169.254',
      '0.0.0.0',
      '::1',
      '::',
      '::ffff:10.0.0.1',
      'fc00::1',
      'fe80::1',
      '224.0.0.1',
      '255.255.255.255',
    ]) {
      expect(addressRefusal(address), address).toMatch(/refused/);
    }
  });

  it('refuses a name that resolves to loopback, and the connection never happens', async () => {
    await expect(checkedAddresses('localhost')).rejects.toThrow(/loopback/);
    await expect(
      sendWebhook({
        url: `http://localhost:${port}/hook`,
        body: '{}',
        secret: 's',
        deliveryId: 'd',
        allowPrivateNetworks: false,
      }),
    ).rejects.toThrow(/loopback/);
    await expect(
      sendWebhook({
        url: `http://[::ffff:127.0.0.1]:${port}/hook`,
        body: '{}',
        secret: 's',
        deliveryId: 'd',
        allowPrivateNetworks: false,
      }),
    ).rejects.toThrow(/loopback/);
    expect(receiver.received).toEqual([]);
    // The flag lifts it.
    await sendWebhook({
      url: `http://localhost:${port}/hook`,
      body: '{}',
      secret: 's',
      deliveryId: 'd',
      allowPrivateNetworks: true,
    });
    expect(receiver.received).toHaveLength(1);
  });

  it('gives up on a receiver that does not answer in time, and reads only the start of a long answer', async () => {
    receiver.answers.push('hang');
    await expect(
      sendWebhook({
        url: receiver.url,
        body: '{}',
        secret: 's',
        deliveryId: 'd',
        allowPrivateNetworks: true,
        timeoutMs: 300,
      }),
    ).rejects.toThrow(/no answer within 0.3 s/);
  });
});
