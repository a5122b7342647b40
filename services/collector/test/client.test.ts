// The typed client against a live server: the same procedures as REST, typed, with contract error codes.
import { createCollectorClient, errorCodeOf } from '@collector/client';
import { describe, expect, it } from 'vitest';
import { makeEvent, PASSWORD, startTestServer, uniqueEmail } from './harness';

const server = await startTestServer();

describe('typed client', () => {
  it('signs up, creates an app, ingests and reads issues', async () => {
    let token: string | undefined;
    const client = createCollectorClient({ baseUrl: server.url.replace('localhost', '127.0.0.1'), token: () => token });
    const email = uniqueEmail();
    const registered = await client.auth.register.mutate({ email, password: PASSWORD });
    token = registered.token;
    expect((await client.auth.me.query()).user.email).toBe(email);
    const { app } = await client.apps.create.mutate({ name: 'Shop', type: 'web' });
    const ingested = await client.events.ingest.mutate({ appKey: app.appKey, events: [makeEvent({ fingerprint: 'js:client' })] });
    expect(ingested).toEqual({ accepted: 1, duplicates: 0, rejected: [] });
    const { issues, nextCursor } = await client.issues.list.query({ appKey: app.appKey });
    expect(issues.map((issue) => issue.id)).toEqual([`${app.appKey}:js:client`]);
    expect(nextCursor).toBeNull();
    const detail = await client.issues.get.query({ id: `${app.appKey}:js:client` });
    expect(detail.events).toHaveLength(1);
    expect((await client.overview.get.query({})).totals.events).toBe(1);
  });

  it('carries the contract error code on failures', async () => {
    const client = createCollectorClient({ baseUrl: server.url.replace('localhost', '127.0.0.1') });
    const failure = await client.auth.me.query().catch((error: unknown) => error);
    expect(errorCodeOf(failure)).toBe('UNAUTHENTICATED');
    const taken = uniqueEmail();
    await client.auth.register.mutate({ email: taken, password: PASSWORD });
    expect(errorCodeOf(await client.auth.register.mutate({ email: taken, password: PASSWORD }).catch((error: unknown) => error))).toBe('EMAIL_TAKEN');
  });
});
