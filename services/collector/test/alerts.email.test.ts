// E-mail alerts through a real SMTP server started here: the mail arrives with the issue, its counts and the link,
// and a server that refuses the first attempt gets the mail on the retry.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp, makeEvent, sendBatch, signUp, startTestServer } from './harness';

const received: ParsedMail[] = [];
let refuseNext = 0;
const smtp = new SMTPServer({
  authOptional: false,
  disabledCommands: ['STARTTLS'],
  onAuth(auth, _session, callback) {
    if (auth.username === 'alerts' && auth.password === 's3cret') return callback(null, { user: 'alerts' });
    callback(new Error('bad credentials'));
  },
  onMailFrom(_address, _session, callback) {
    if (refuseNext > 0) {
      refuseNext -= 1;
      return callback(Object.assign(new Error('try again later'), { responseCode: 451 }));
    }
    callback();
  },
  onData(stream, _session, callback) {
    simpleParser(stream).then(
      (mail) => {
        received.push(mail);
        callback();
      },
      (error: Error) => callback(error),
    );
  },
});
smtp.listen(0, '127.0.0.1');
await once(smtp.server, 'listening');
afterAll(() => new Promise<void>((resolve) => smtp.close(() => resolve())));
const smtpPort = (smtp.server.address() as AddressInfo).port;

const PUBLIC_URL = 'https://errors.example.com';
const server = await startTestServer({
  alerts: {
    smtpUrl: `smtp://alerts:s3cret@127.0.0.1:${smtpPort}`,
    mailFrom: 'Collector <collector@example.com>',
    pollMs: 100,
    firstRetryMs: 300,
    publicUrl: PUBLIC_URL,
  },
});
const { token } = await signUp(server);

async function waitForMail(count: number, timeoutMs = 8_000) {
  const deadline = Date.now() + timeoutMs;
  while (received.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  return received.slice(0, count);
}

describe('an e-mail alert', () => {
  it('mails a new issue with its message, counts and link, in text and HTML', async () => {
    const app = await createApp(server, token, { name: 'Storefront' });
    const created = await server.call('POST', `/api/apps/${app.appKey}/alerts`, {
      token,
      body: { trigger: 'new_issue', channel: { type: 'email', to: 'oncall@example.com' } },
    });
    expect(created.status).toBe(201);
    const before = received.length;
    const events = [0, 1, 2].map((i) =>
      makeEvent({
        fingerprint: 'TypeError:cart',
        message: 'Cannot read properties of undefined',
        anonymousId: `anon_${i}`,
      }),
    );
    expect((await sendBatch(server, app.appKey, events)).status).toBe(200);
    const [mail] = (await waitForMail(before + 1)).slice(before);
    if (!mail) throw new Error('no mail arrived');
    const issueUrl = `${PUBLIC_URL}/issues/${encodeURIComponent(`${app.appKey}:TypeError:cart`)}`;
    expect(mail.from?.text).toContain('collector@example.com');
    expect(mail.to && 'text' in mail.to ? mail.to.text : '').toBe('oncall@example.com');
    expect(mail.subject).toBe('[Storefront] New issue: TypeError: Cannot read properties of undefined');
    expect(mail.text).toContain('Cannot read properties of undefined');
    expect(mail.text).toContain('3 events, 3 users');
    expect(mail.text).toContain(issueUrl);
    expect(mail.html).toContain(`href="${issueUrl.replaceAll('&', '&amp;')}"`);
    expect(mail.html).toContain('3 events, 3 users');

    const deliveries = await server.call('GET', `/api/apps/${app.appKey}/alerts/deliveries`, { token });
    expect(deliveries.body.deliveries).toEqual([
      expect.objectContaining({ status: 'delivered', attempts: 1, trigger: 'new_issue' }),
    ]);
  });

  it('is retried when the SMTP server refuses the first attempt', async () => {
    const app = await createApp(server, token);
    await server.call('POST', `/api/apps/${app.appKey}/alerts`, {
      token,
      body: { trigger: 'new_issue', channel: { type: 'email', to: 'oncall@example.com' } },
    });
    const before = received.length;
    refuseNext = 1;
    expect(
      (await sendBatch(server, app.appKey, [makeEvent({ fingerprint: 'RangeError:retry', errorType: 'RangeError' })]))
        .status,
    ).toBe(200);
    const [mail] = (await waitForMail(before + 1)).slice(before);
    expect(mail?.subject).toContain('RangeError');
    let delivery: { status: string; attempts: number; lastError: string } | undefined;
    for (let i = 0; i < 30 && delivery?.status !== 'delivered'; i++) {
      delivery = (await server.call('GET', `/api/apps/${app.appKey}/alerts/deliveries`, { token })).body.deliveries[0];
      if (delivery?.status !== 'delivered') await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(delivery).toMatchObject({
      status: 'delivered',
      attempts: 2,
      lastError: expect.stringContaining('try again later'),
    });
    expect(received.length).toBe(before + 1);
  });

  it('sends a test mail', async () => {
    const app = await createApp(server, token, { name: 'Tested' });
    const created = await server.call('POST', `/api/apps/${app.appKey}/alerts`, {
      token,
      body: {
        trigger: 'spike',
        spike: { events: 10, minutes: 5 },
        channel: { type: 'email', to: 'oncall@example.com' },
      },
    });
    const before = received.length;
    const reply = await server.call('POST', `/api/apps/${app.appKey}/alerts/${created.body.alert.id}/test`, { token });
    expect(reply.body.delivery).toMatchObject({ status: 'delivered', trigger: 'test' });
    expect(received[before]?.subject).toMatch(/^\[Tested\] Test alert: /);
  });
});
