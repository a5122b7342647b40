// Sentry's event data from the real SDKs, unmodified, through the real service: every SDK installable here sends the
// same checkout failure (sentry-clients.ts: tags, a user, an `order` context beside the SDK's own contexts, a cause, the
// request with credentials and a password, extra), and every field is read back through the REST API: the issue list,
// the issue with its events, the issue's tag counts, and a tag search. Credentials never come back, in any field.
import { describe, expect, it } from 'vitest';
import { createApp, signUp, startTestServer } from './harness';
import {
  goClientMissing,
  rubyClientMissing,
  runBrowserClient,
  runGoCheckout,
  runNodeCheckout,
  runPythonCheckout,
  runRubyCheckout,
} from './sentry-clients';

const server = await startTestServer();

// The Go and Ruby SDKs need Debian packages that CI installs (.ci/run); a machine without the interpreter skips them,
// and says so here rather than passing in silence.
const goMissing = goClientMissing();
const rubyMissing = rubyClientMissing();
if (goMissing) console.warn(`sentry.event-data: skipping sentry-go, missing ${goMissing}`);
if (rubyMissing) console.warn(`sentry.event-data: skipping sentry-ruby, missing ${rubyMissing}`);

/** What differs between the SDKs' reports of the same failure. */
interface Sdk {
  name: string;
  appType: string;
  run: (dsn: string) => Promise<unknown>;
  /** The main exception's type and the cause's, as the SDK names them. */
  errorType: string;
  causeType: string;
  causeValue: string;
  /**
   * The contexts the SDK adds of its own, and the derived tags they make (no `device` tag: the server SDKs' device
   * context names an architecture, not a model).
   */
  contexts: string[];
  derivedTags: string[];
  /** `exception.mechanism.handled` of the main exception; null when the SDK sends no mechanism. */
  handled: boolean | null;
  /** The request as it comes back; undefined for the browser, which reports its page, not a served request. */
  request?: { headerId: string; urlPath: RegExp };
  serverName?: string;
  transaction?: string;
}

const sdks: Sdk[] = [
  {
    name: '@sentry/node 11',
    appType: 'node',
    run: runNodeCheckout,
    errorType: 'Error',
    causeType: 'NetworkError',
    causeValue: 'card network unreachable',
    contexts: ['os', 'runtime', 'device'],
    derivedTags: ['os', 'runtime', 'server_name', 'transaction'],
    handled: true,
    request: { headerId: 'req-node-77', urlPath: /^http:\/\/127\.0\.0\.1:\d+\/checkout/ },
    serverName: 'api-node-1',
    transaction: 'POST /checkout',
  },
  {
    name: 'python sentry-sdk 1.9.10',
    appType: 'other',
    run: runPythonCheckout,
    errorType: 'CheckoutError',
    causeType: 'CardNetworkError',
    causeValue: 'card network unreachable',
    contexts: ['runtime'],
    derivedTags: ['runtime', 'server_name', 'transaction'],
    // The WSGI middleware reports what the app let escape: unhandled.
    handled: false,
    request: { headerId: 'req-py-77', urlPath: /^http:\/\/shop\.example\/checkout/ },
    serverName: 'api-py-1',
    transaction: 'generic WSGI request',
  },
  {
    name: 'sentry-go 0.11',
    appType: 'other',
    run: runGoCheckout,
    errorType: '*main.CheckoutError',
    causeType: '*main.NetworkError',
    causeValue: 'card network unreachable: cards.example',
    contexts: ['os', 'runtime', 'device'],
    derivedTags: ['os', 'runtime', 'server_name', 'transaction'],
    handled: null,
    request: { headerId: 'req-go-77', urlPath: /^http:\/\/127\.0\.0\.1:\d+\/checkout/ },
    serverName: 'api-go-1',
    transaction: 'POST /checkout',
  },
  {
    name: 'sentry-ruby 5.3',
    appType: 'other',
    run: runRubyCheckout,
    errorType: 'CheckoutError',
    causeType: 'CardNetworkError',
    causeValue: 'card network unreachable',
    contexts: ['os', 'runtime'],
    derivedTags: ['os', 'runtime', 'server_name', 'transaction'],
    handled: null,
    request: { headerId: 'req-rb-77', urlPath: /^http:\/\/shop\.example\/checkout/ },
    serverName: 'api-rb-1',
    transaction: '/checkout',
  },
  {
    name: '@sentry/browser 11 in Chromium',
    appType: 'web',
    run: (dsn) => runBrowserClient(dsn, ['checkout']),
    errorType: 'Error',
    causeType: 'NetworkError',
    causeValue: 'card network unreachable',
    contexts: [],
    derivedTags: [],
    handled: true,
  },
];

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What no field of anything returned may hold: the credentials and the password the requests carried. */
const SECRETS = /sk_live|-cookie|hunter2/;

/** A reply as JSON without the frames' source lines: the scripts' own code, which spells the secrets it sends. */
const withoutSource = (body: unknown) =>
  JSON.stringify(body, (key, value) =>
    key === 'contextLine' || key === 'preContext' || key === 'postContext' ? undefined : value,
  );

describe('Sentry event data from the real SDKs, read back through the REST API', () => {
  for (const sdk of sdks) {
    const missing = sdk.run === runGoCheckout ? goMissing : sdk.run === runRubyCheckout ? rubyMissing : undefined;
    it.skipIf(missing !== undefined)(`${sdk.name}: tags, user, contexts, the cause, request, extra`, async () => {
      const { token } = await signUp(server);
      const app = await createApp(server, token, { type: sdk.appType });
      await sdk.run(app.dsn.replace('@localhost:', '@127.0.0.1:'));

      const list = await server.call('GET', `/api/issues?appKey=${app.appKey}`, { token });
      expect(list.status).toBe(200);
      expect(list.body.issues).toHaveLength(1);
      const [issue] = list.body.issues;
      expect(issue).toMatchObject({ errorType: sdk.errorType, message: 'Checkout failed', eventCount: 1 });
      expect(issue.unhandled).toBe(sdk.handled === false);

      const detail = await server.call('GET', `/api/issues/${encodeURIComponent(issue.id)}`, { token });
      expect(detail.status).toBe(200);
      expect(withoutSource(detail.body)).not.toMatch(SECRETS);
      const [event] = detail.body.events;
      expect(event.tags).toMatchObject({ tenant: 'acme', 'checkout.step': 'payment' });
      expect(event.user).toMatchObject({ id: 'buyer-42', email: 'buyer42@example.com', username: 'buyer42' });
      expect(event.contexts.order).toEqual({ id: 'ord_981', total: 1999, currency: 'EUR' });
      for (const name of sdk.contexts) expect(event.contexts, name).toHaveProperty(name);
      expect(event.extra).toMatchObject({ cart_items: 3, coupon: 'SPRING' });
      expect(event.handled).toBe(sdk.handled);
      // The chain, the cause first as Sentry orders it; the main exception with the frames it was raised through.
      expect(event.exceptions.map((one: { type: string }) => one.type)).toEqual([sdk.causeType, sdk.errorType]);
      expect(event.exceptions[0].value).toBe(sdk.causeValue);
      expect(event.exceptions[1].value).toBe('Checkout failed');
      expect(event.exceptions[1].frames.length).toBeGreaterThan(0);
      expect(event.frames.length).toBeGreaterThan(0);
      // The stack text, stored as the chain's frames and written again from them: the main exception, then its cause.
      expect(event.stack).toMatch(new RegExp(`^${escaped(sdk.errorType)}: Checkout failed\n {4}at `));
      expect(event.stack).toContain(`\nCaused by: ${sdk.causeType}: ${sdk.causeValue}`);

      if (sdk.request) {
        expect(event.serverName).toBe(sdk.serverName);
        expect(event.transaction).toBe(sdk.transaction);
        const { request } = event;
        expect(request).toMatchObject({ method: 'POST', query: 'step=pay&coupon=SPRING' });
        expect(request.url).toMatch(sdk.request.urlPath);
        const headers = Object.fromEntries(
          Object.entries(request.headers as Record<string, string>).map(([name, value]) => [name.toLowerCase(), value]),
        );
        expect(headers['x-request-id']).toBe(sdk.request.headerId);
        expect(headers['content-type']).toBe('application/json');
        expect(headers).not.toHaveProperty('authorization');
        expect(headers).not.toHaveProperty('cookie');
        // Each SDK sends the JSON body its own way (parsed, or as the text it read): it comes back as the object.
        expect(request.data).toEqual({ card_last4: '4242', password: '[Filtered]' });
      } else {
        // The browser reports the page it ran on, with its query and the browser's User-Agent.
        expect(event.request?.url ?? event.url).toMatch(/\/checkout\?step=2$/);
        expect(event.userAgent).toMatch(/Chrome/);
      }

      const tags = await server.call('GET', `/api/issues/${encodeURIComponent(issue.id)}/tags`, { token });
      expect(tags.status).toBe(200);
      const counted = new Map(
        (tags.body.tags as Array<{ key: string; values: Array<{ value: string; events: number }> }>).map((tag) => [
          tag.key,
          tag.values,
        ]),
      );
      expect(counted.get('tenant')).toEqual([{ value: 'acme', events: 1 }]);
      expect(counted.get('checkout.step')).toEqual([{ value: 'payment', events: 1 }]);
      expect(counted.get('level')).toEqual([{ value: 'error', events: 1 }]);
      if (sdk.handled !== null)
        expect(counted.get('handled')).toEqual([{ value: sdk.handled ? 'yes' : 'no', events: 1 }]);
      for (const key of sdk.derivedTags) expect(counted.get(key), key).toHaveLength(1);
      if (sdk.serverName) expect(counted.get('server_name')).toEqual([{ value: sdk.serverName, events: 1 }]);

      const search = async (q: string) => {
        const reply = await server.call('GET', `/api/issues?appKey=${app.appKey}&q=${encodeURIComponent(q)}`, {
          token,
        });
        expect(reply.status, q).toBe(200);
        return (reply.body.issues as Array<{ id: string }>).map((found) => found.id);
      };
      expect(await search('tenant:acme')).toEqual([issue.id]);
      expect(await search('checkout.step:payment tenant:acme')).toEqual([issue.id]);
      expect(await search('tenant:globex')).toEqual([]);
      expect(await search('!tenant:acme')).toEqual([]);
      expect(await search(`handled:${sdk.handled === false ? 'no' : 'yes'}`)).toEqual(
        sdk.handled === null ? [] : [issue.id],
      );
    });
  }
});
