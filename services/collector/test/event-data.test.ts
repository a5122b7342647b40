// Sentry's event data through HTTP (contract, "Sentry's event data, kept and searchable"): what the batch and store
// endpoints keep, scrubbed and bounded; the issue's tag counts, exact before any fold; its breakdown from contexts;
// the unhandled badge; and STORE_IP.
import { GROUPING_VERSION } from '@collector/domain';
import { describe, expect, it } from 'vitest';
import { createApp, makeEvent, sendBatch, signUp, startTestServer } from './harness';
import { dsnParts } from './sentry-fixtures';

const server = await startTestServer();
const quiet = await startTestServer({ storeIp: false });

const sentryEvent = (overrides: Record<string, unknown> = {}) => ({
  event_id: crypto.randomUUID().replaceAll('-', ''),
  timestamp: Date.now() / 1000,
  platform: 'node',
  exception: {
    values: [
      {
        type: 'DbError',
        value: 'connection reset',
        mechanism: { type: 'chained', handled: true },
        stacktrace: { frames: [{ function: 'query', filename: '/app/db.js', lineno: 9, in_app: true }] },
      },
      {
        type: 'Error',
        value: 'Checkout failed',
        mechanism: { type: 'onuncaughtexception', handled: false },
        stacktrace: { frames: [{ function: 'checkout', filename: '/app/cart.js', lineno: 3, in_app: true }] },
      },
    ],
  },
  tags: { plan: 'pro', region: 'eu-west' },
  user: { id: 42, email: 'ada@example.com', username: 'ada', ip_address: '203.0.113.9' },
  contexts: {
    os: { name: 'Linux', version: '6.1.0' },
    runtime: { name: 'node', version: 'v20.11.1' },
    order: { id: 'ord_1', coupon_token: 'c-1' },
  },
  extra: { cart: { items: 3 }, password: 'hunter2' },
  request: {
    method: 'POST',
    url: 'https://shop.example/api/checkout?step=2&token=abc',
    query_string: 'step=2&token=abc',
    headers: { 'User-Agent': 'node', Authorization: 'Bearer secret', Cookie: 'sid=1', 'Content-Type': 'json' },
    data: { card: 'visa', password: 'p' },
  },
  server_name: 'web-1',
  logger: 'payments',
  transaction: 'POST /api/checkout',
  ...overrides,
});

async function storeEvent(target: typeof server, dsn: string, event: Record<string, unknown>) {
  const { projectId, publicKey } = dsnParts(dsn);
  const reply = await target.call('POST', `/api/${projectId}/store/?sentry_key=${publicKey}`, { body: event });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
}

async function onlyIssue(target: typeof server, token: string, appKey: string) {
  const { issues } = (await target.call('GET', `/api/issues?appKey=${appKey}`, { token })).body;
  expect(issues).toHaveLength(1);
  return issues[0];
}

describe("Sentry's event data, kept and searchable", () => {
  it('keeps every field of a Sentry event, scrubbed, and shows the issue as unhandled', async () => {
    const { token } = await signUp(server);
    const app = await createApp(server, token, { type: 'node' });
    const sent = sentryEvent();
    await storeEvent(server, app.dsn, sent);
    const issue = await onlyIssue(server, token, app.appKey);
    expect(issue).toMatchObject({ message: 'Checkout failed', unhandled: true, groupingVersion: GROUPING_VERSION });
    // The list's sparkline: 14 days, today's holding the event, exact before any fold.
    expect(issue.series).toHaveLength(14);
    expect(issue.series.at(-1)).toEqual({ start: Math.floor(Date.now() / 86_400_000) * 86_400_000, events: 1 });
    expect(issue.series.slice(0, -1).every((day: { events: number }) => day.events === 0)).toBe(true);
    const detail = await server.call('GET', `/api/issues/${encodeURIComponent(issue.id)}`, { token });
    const [event] = detail.body.events;
    expect(event).toMatchObject({
      eventId: `evt_${sent.event_id}`,
      tags: { plan: 'pro', region: 'eu-west' },
      user: { id: '42', email: 'ada@example.com', username: 'ada', ip_address: '203.0.113.9' },
      anonymousId: 'anon_42',
      contexts: {
        os: { name: 'Linux', version: '6.1.0' },
        runtime: { name: 'node', version: 'v20.11.1' },
        order: { id: 'ord_1', coupon_token: '[Filtered]' },
      },
      extra: { cart: { items: 3 }, password: '[Filtered]' },
      handled: false,
      serverName: 'web-1',
      logger: 'payments',
      transaction: 'POST /api/checkout',
      request: {
        method: 'POST',
        url: 'https://shop.example/api/checkout?step=2&token=[Filtered]',
        query: 'step=2&token=[Filtered]',
        headers: { 'user-agent': 'node', 'content-type': 'json' },
        data: { card: 'visa', password: '[Filtered]' },
      },
      frames: [{ function: 'checkout', file: '/app/cart.js', line: 3, inApp: true }],
    });
    expect(event.exceptions.map((exception: { type: string }) => exception.type)).toEqual(['DbError', 'Error']);
    expect(event.exceptions[0].frames[0]).toMatchObject({ function: 'query', file: '/app/db.js' });
    expect(typeof event.timestamp).toBe('number');
    expect(typeof event.receivedAt).toBe('number');
    expect(JSON.stringify(detail.body)).not.toMatch(/hunter2|Bearer secret|sid=1|abc"/);

    // A server app's breakdown comes from its contexts: no user agent named the OS or runtime.
    expect(detail.body.breakdown).toMatchObject({
      events: 1,
      os: [{ value: 'Linux 6.1.0', events: 1 }],
      runtimes: [{ value: 'node v20.11.1', events: 1 }],
      browsers: [{ value: null, events: 1 }],
    });
  });

  it('counts tag values exactly per issue, with derived tags, release and environment', async () => {
    const { token } = await signUp(server);
    const app = await createApp(server, token, { type: 'node' });
    for (const plan of ['pro', 'pro', 'free'])
      await storeEvent(
        server,
        app.dsn,
        sentryEvent({ tags: { plan }, level: 'error', release: 'api@2', environment: 'prod' }),
      );
    const issue = await onlyIssue(server, token, app.appKey);
    const reply = await server.call('GET', `/api/issues/${encodeURIComponent(issue.id)}/tags`, { token });
    expect(reply.status).toBe(200);
    const tags = Object.fromEntries(
      reply.body.tags.map((tag: { key: string; values: unknown[] }) => [tag.key, tag.values]),
    );
    expect(tags).toMatchObject({
      plan: [
        { value: 'pro', events: 2 },
        { value: 'free', events: 1 },
      ],
      handled: [{ value: 'no', events: 3 }],
      level: [{ value: 'error', events: 3 }],
      os: [{ value: 'Linux 6.1.0', events: 3 }],
      runtime: [{ value: 'node v20.11.1', events: 3 }],
      server_name: [{ value: 'web-1', events: 3 }],
      release: [{ value: 'api@2', events: 3 }],
      environment: [{ value: 'prod', events: 3 }],
    });
    // Keys in name order.
    const keys = reply.body.tags.map((tag: { key: string }) => tag.key);
    expect(keys).toEqual([...keys].sort());
    // The search finds the issue by a tag value, and not by another.
    const found = await server.call('GET', `/api/issues?appKey=${app.appKey}&q=plan:free`, { token });
    expect(found.body.issues.map((row: { id: string }) => row.id)).toEqual([issue.id]);
    const none = await server.call('GET', `/api/issues?appKey=${app.appKey}&q=plan:enterprise`, { token });
    expect(none.body.issues).toEqual([]);
  });

  it('takes tags, user, contexts and extra on the batch endpoint, and shows 10 values per tag at most', async () => {
    const { token } = await signUp(server);
    const app = await createApp(server, token);
    const events = Array.from({ length: 12 }, (_, i) =>
      makeEvent({
        tags: { page: `/p${i % 12}`, tier: 'gold' },
        user: { id: 'u1', email: 'bob@example.com' },
        contexts: { browser: { name: 'Firefox', version: '120' } },
        extra: { step: i },
      }),
    );
    expect((await sendBatch(server, app.appKey, events)).body.accepted).toBe(12);
    const issue = await onlyIssue(server, token, app.appKey);
    expect(issue.unhandled).toBe(false);
    const detail = await server.call('GET', `/api/issues/${encodeURIComponent(issue.id)}`, { token });
    expect(detail.body.events[0]).toMatchObject({
      user: { id: 'u1', email: 'bob@example.com' },
      contexts: { browser: { name: 'Firefox', version: '120' } },
      tags: { tier: 'gold' },
    });
    // Contexts named the browser: it, not the user agent, fills the breakdown.
    expect(detail.body.breakdown.browsers).toEqual([{ value: 'Firefox 120', events: 12 }]);
    const { tags } = (await server.call('GET', `/api/issues/${encodeURIComponent(issue.id)}/tags`, { token })).body;
    const page = tags.find((tag: { key: string }) => tag.key === 'page');
    expect(page.values).toHaveLength(10);
    expect(tags.find((tag: { key: string }) => tag.key === 'tier').values).toEqual([{ value: 'gold', events: 12 }]);
  });

  it('answers 404 for the tags of an issue that does not exist or belongs to another organization', async () => {
    const { token } = await signUp(server);
    const app = await createApp(server, token);
    await sendBatch(server, app.appKey, [makeEvent({ tags: { a: 'b' } })]);
    const issue = await onlyIssue(server, token, app.appKey);
    const stranger = await signUp(server);
    const path = `/api/issues/${encodeURIComponent(issue.id)}/tags`;
    expect((await server.call('GET', path, { token: stranger.token })).status).toBe(404);
    expect((await server.call('GET', `/api/issues/${app.appKey}:nope:0/tags`, { token })).status).toBe(404);
    expect((await server.call('GET', path)).status).toBe(401);
  });

  it('drops the IP address at ingestion when STORE_IP is false', async () => {
    const { token } = await signUp(quiet);
    const app = await createApp(quiet, token, { type: 'node' });
    await storeEvent(quiet, app.dsn, sentryEvent());
    const issue = await onlyIssue(quiet, token, app.appKey);
    const [event] = (await quiet.call('GET', `/api/issues/${encodeURIComponent(issue.id)}`, { token })).body.events;
    expect(event.user).toEqual({ id: '42', email: 'ada@example.com', username: 'ada' });
  });
});
