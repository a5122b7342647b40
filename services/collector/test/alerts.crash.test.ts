// Delivery survives a crash: the collector is killed (SIGKILL) after the batch's 200 while its webhook is still
// unanswered, started again on the same database, and the webhook arrives (again: at least once), same delivery id.
import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { makeEvent, PASSWORD, uniqueEmail } from './harness';
import { startReceiver } from './webhook-receiver';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const databaseUrl = process.env.TEST_DATABASE_URL || undefined;
const dataDir = mkdtempSync(join(tmpdir(), 'collector-alerts-crash-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const receiver = await startReceiver();
afterAll(() => receiver.close());
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** The service as `pnpm start` runs it (shutdown.test.ts starts it the same way). */
async function startService(): Promise<{ child: ChildProcess; url: string; exit: Promise<unknown> }> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    ALERTS_ALLOW_PRIVATE_NETWORKS: 'true',
    PUBLIC_URL: 'https://collector.example.com',
  };
  if (!databaseUrl) delete env.DATABASE_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', 'services/collector/src/main.ts'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const exit = once(child, 'exit');
  const output: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not listening within 60 s:\n${output.join('')}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString('utf8'));
      const match = /listening on (http:\/\/[^\s"]+)/.exec(output.join(''));
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exit.then(() => reject(new Error(`exited:\n${output.join('')}`)));
  });
  return { child, url, exit };
}

async function call(url: string, method: string, path: string, body?: unknown, token?: string) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

describe('a crash between the batch’s 200 and the webhook’s delivery', () => {
  it('loses no alert: the restarted collector delivers it, with the same delivery id', {
    timeout: 150_000,
  }, async () => {
    const first = await startService();
    const { body: account } = await call(first.url, 'POST', '/api/auth/register', {
      email: uniqueEmail(),
      password: PASSWORD,
    });
    const { body: created } = await call(
      first.url,
      'POST',
      '/api/apps',
      { name: 'Crashy', type: 'web' },
      account.token,
    );
    const appKey = created.app.appKey;
    const { body: rule } = await call(
      first.url,
      'POST',
      `/api/apps/${appKey}/alerts`,
      { trigger: 'new_issue', channel: { type: 'webhook', url: receiver.url } },
      account.token,
    );

    receiver.answers.push('hang');
    const batch = await call(first.url, 'POST', '/api/events/batch', {
      appKey,
      events: [makeEvent({ fingerprint: 'Error:crash' })],
    });
    expect(batch.status).toBe(200);
    // The webhook is on its way and unanswered: the collector dies now.
    const [inFlight] = await receiver.waitFor(1, 10_000);
    first.child.kill('SIGKILL');
    await first.exit;

    const second = await startService();
    // The attempt the dead process held is taken again when its lease ends (30 s).
    const [, again] = await receiver.waitFor(2, 60_000);
    expect(again?.headers['x-collector-delivery']).toBe(inFlight?.headers['x-collector-delivery']);
    expect(again?.raw).toBe(inFlight?.raw);
    expect(again?.headers['x-collector-signature']).toBe(
      `sha256=${createHmac('sha256', rule.alert.secret)
        .update(again?.raw ?? '')
        .digest('hex')}`,
    );
    expect(again?.body).toMatchObject({ trigger: 'new_issue', issue: { id: `${appKey}:Error:crash` } });

    let deliveries: Array<{ status: string; attempts: number }> = [];
    for (let i = 0; i < 50; i++) {
      deliveries = (await call(second.url, 'GET', `/api/apps/${appKey}/alerts/deliveries`, undefined, account.token))
        .body.deliveries;
      if (deliveries[0]?.status === 'delivered') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(deliveries).toEqual([expect.objectContaining({ status: 'delivered', attempts: 2 })]);
    second.child.kill('SIGTERM');
    await second.exit;
  });
});
