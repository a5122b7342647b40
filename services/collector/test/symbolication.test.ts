// Source maps applied at ingestion (issue 22), through HTTP with the envelopes @sentry/browser sends: frames mapped by
// debug ID or by release, dist and URL; grouping on mapped frames that survives a rebuild; a map that arrives late
// applied when the event is shown; the time limit and a broken map, each stored unmapped with its state.
import { describe, expect, it } from 'vitest';
import { createApp, signUp, startTestServer, type TestServer } from './harness';
import { dsnParts } from './sentry-fixtures';
import {
  appSource,
  type BuiltApp,
  browserEvent,
  buildApp,
  bundleLastUsed,
  envelope,
  insertBundle,
} from './source-maps';

// The service trusts an app's "no bundle" answer for a few seconds: the tests move its clock past that after an upload.
let offset = 0;
const clock = () => Date.now() + offset;
const afterUpload = () => {
  offset += 10_000;
};
const server = await startTestServer({ clock });

async function newApp(on: TestServer = server) {
  const { token } = await signUp(on);
  const app = await createApp(on, token, { type: 'web' });
  return { token, app, ...dsnParts(app.dsn) };
}

type NewApp = Awaited<ReturnType<typeof newApp>>;

async function send(target: NewApp, event: Record<string, unknown>, on: TestServer = server) {
  const reply = await on.call('POST', `/api/${target.projectId}/envelope/?sentry_key=${target.publicKey}`, {
    rawBody: envelope(event),
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
}

async function issues(target: NewApp, on: TestServer = server) {
  const reply = await on.call('GET', `/api/issues?appKey=${target.app.appKey}`, { token: target.token });
  expect(reply.status).toBe(200);
  return reply.body.issues as Array<{ id: string; eventCount: number; message: string }>;
}

/** The events of the app's only issue, newest first. */
async function shownEvents(target: NewApp, on: TestServer = server) {
  const [issue, ...others] = await issues(target, on);
  expect(others).toEqual([]);
  const reply = await on.call('GET', `/api/issues/${encodeURIComponent(issue?.id ?? '')}`, { token: target.token });
  expect(reply.status).toBe(200);
  return reply.body.events as Array<Record<string, any>>;
}

/** The 1-based line of the first source line that holds `text`. */
const lineOf = (app: BuiltApp, text: string) => app.source.split('\n').findIndex((line) => line.includes(text)) + 1;

function expectMapped(event: Record<string, any>, app: BuiltApp) {
  expect(event.symbolication).toEqual({ state: 'mapped' });
  const line = lineOf(app, 'throw new Error');
  const [innermost, outer] = event.frames;
  // The function the error was thrown in, named by its caller's call position; the original file, line and context.
  expect(innermost).toMatchObject({
    function: 'applyDiscount',
    file: 'src/checkout.js',
    line,
    inApp: true,
    contextLine: "    throw new Error('discount code expired: ' + cart.code);",
  });
  expect(innermost.preContext.at(-1)).toBe('  if (total > 0) {');
  expect(innermost.postContext[0]).toBe('  }');
  // The frame as sent is kept.
  const sent = (browserEvent(app).exception as any).values[0].stacktrace.frames.at(-1);
  expect(innermost.raw).toEqual({
    function: sent.function,
    file: sent.filename,
    line: sent.lineno,
    column: sent.colno,
  });
  expect(outer).toMatchObject({ file: 'src/checkout.js', line: lineOf(app, 'return applyDiscount') });
  // People and grouping read the original names.
  expect(event.stack).toContain(`at applyDiscount (src/checkout.js:${line}:`);
}

describe('symbolication at ingestion', () => {
  it('maps a browser event by its debug ID, keeps the raw frames and renews the bundle', async () => {
    const target = await newApp();
    const app = await buildApp();
    const bundle = await insertBundle(server, target.app.appKey, app);
    const before = await bundleLastUsed(server, bundle);
    await send(target, browserEvent(app));
    const [event] = await shownEvents(target);
    expectMapped(event as Record<string, any>, app);
    await expect.poll(() => bundleLastUsed(server, bundle)).toBeGreaterThan(before);
  });

  it('maps by release, dist and URL when the event has no debug ID', async () => {
    const target = await newApp();
    const app = await buildApp();
    await insertBundle(server, target.app.appKey, app, { release: 'shop@1.2.0', dist: '7' });
    await send(target, browserEvent(app, { debugImage: false, release: 'shop@1.2.0', dist: '7' }));
    const [event] = await shownEvents(target);
    expectMapped(event as Record<string, any>, app);
  });

  it('says "missing" when no map is known, and leaves the frames as sent', async () => {
    const target = await newApp();
    const app = await buildApp();
    await insertBundle(server, target.app.appKey, app, { release: 'shop@1.0.0' });
    // Another release than the bundle's, no debug image.
    await send(target, browserEvent(app, { debugImage: false, release: 'shop@2.0.0' }));
    const [event] = await shownEvents(target);
    expect(event?.symbolication).toEqual({ state: 'missing' });
    expect(event?.frames[0].raw).toBeUndefined();
    expect(event?.frames[0].file).toBe('http://shop.example/static/app.min.js');
  });

  it('keeps one issue from unmapped events, through maps uploaded, to a rebuild that renames minified functions', async () => {
    const target = await newApp();
    const first = await buildApp();
    // Before any upload: grouped on the minified frames (version 3 reads them as version 2 did).
    await send(target, browserEvent(first));
    await send(target, browserEvent(first));
    const [unmapped] = await issues(target);
    expect(unmapped?.eventCount).toBe(2);

    await insertBundle(server, target.app.appKey, first);
    afterUpload();
    await send(target, browserEvent(first));
    expect(await issues(target)).toEqual([expect.objectContaining({ id: unmapped?.id, eventCount: 3 })]);

    // A rebuild with one unrelated function more: other minified names, other raw frames.
    const rebuilt = await buildApp(
      appSource('function unrelated(a){return [a,a+1].map((x)=>x*2)}\nexport const n = unrelated(1);'),
    );
    const rawNames = (app: BuiltApp) =>
      ((browserEvent(app).exception as any).values[0].stacktrace.frames as Array<{ function?: string }>).map(
        (frame) => frame.function,
      );
    expect(rawNames(rebuilt)).not.toEqual(rawNames(first));
    await insertBundle(server, target.app.appKey, rebuilt);
    await send(target, browserEvent(rebuilt));
    await send(target, browserEvent(rebuilt));
    // Same issue, no second one (and so no second "new issue" alert).
    expect(await issues(target)).toEqual([expect.objectContaining({ id: unmapped?.id, eventCount: 5 })]);
    const [newest] = await shownEvents(target);
    expectMapped(newest as Record<string, any>, rebuilt);
  });

  it('applies a map that arrives after the event when the event is shown, without regrouping it', async () => {
    const target = await newApp();
    const app = await buildApp();
    await send(target, browserEvent(app));
    const [stored] = await shownEvents(target);
    expect(stored?.symbolication).toEqual({ state: 'missing' });
    const [issueBefore] = await issues(target);

    await insertBundle(server, target.app.appKey, app);
    afterUpload();
    const [shown] = await shownEvents(target);
    expectMapped(shown as Record<string, any>, app);
    expect(await issues(target)).toEqual([expect.objectContaining({ id: issueBefore?.id, eventCount: 1 })]);
  });

  it('stores the event unmapped with error when its map cannot be read', async () => {
    const target = await newApp();
    const app = await buildApp();
    await insertBundle(server, target.app.appKey, app, { map: '{"version":3,"sources":["a.js"],"mappings":' });
    await send(target, browserEvent(app));
    const [event] = await shownEvents(target);
    expect(event?.symbolication?.state).toBe('error');
    expect(event?.symbolication?.detail).toMatch(/could not be read/);
    expect(event?.frames[0].raw).toBeUndefined();
  });
});

describe('the time limit', () => {
  it('stores an event whose map is too slow unmapped, and the server answers others meanwhile', async () => {
    const slow = await startTestServer({ symbolication: { timeoutMs: 250 } });
    const target = await newApp(slow);
    const app = await buildApp();
    // A map of some 20 MB: reading, parsing and decoding it took 0.9 s on Node 24 and 1.4 s on Node 20 (this machine):
    // under the 1 s limit this test once had, on Node 24; 3.6 times this one. Not larger: the main thread reads the map
    // from the database before a worker gets it, and the health check below is not to wait for that.
    const parsed = JSON.parse(app.map);
    const huge = JSON.stringify({
      ...parsed,
      mappings: `${parsed.mappings};${'AAAA,'.repeat(4_000_000)}AAAA`,
    });
    await insertBundle(slow, target.app.appKey, app, { map: huge });
    const sending = send(target, browserEvent(app), slow);
    const started = Date.now();
    const health = await slow.call('GET', '/healthz');
    expect(health.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1_000);
    await sending;
    const [event] = await shownEvents(target, slow);
    expect(event?.symbolication).toMatchObject({ state: 'timeout', detail: expect.stringMatching(/time limit/) });
    expect(event?.frames[0].raw).toBeUndefined();
    expect(event?.frames[0].file).toBe('http://shop.example/static/app.min.js');

    // The next event with a small map is mapped: the stuck worker was replaced.
    const other = await newApp(slow);
    const small = await buildApp();
    await insertBundle(slow, other.app.appKey, small);
    await send(other, browserEvent(small), slow);
    const [mapped] = await shownEvents(other, slow);
    expect(mapped?.symbolication).toEqual({ state: 'mapped' });
  });
});
