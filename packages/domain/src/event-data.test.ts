import { describe, expect, it } from 'vitest';
import { judgeEvent, type StoredEvent } from './event';
import { boundEventData, FILTERED, scrubbedQuery, scrubbedUrl, tagsOf } from './event-data';
import { eventDataLimits } from './limits';

const RECEIVED_AT = Date.parse('2026-11-25T12:00:00Z');

function judged(fields: Record<string, unknown>, options: { storeIp?: boolean } = {}): StoredEvent {
  const verdict = judgeEvent(
    { eventId: 'evt_1', type: 'error', timestamp: RECEIVED_AT, ...fields },
    { appKey: 'web_0123456789abcdef', receivedAt: RECEIVED_AT, ...options },
  );
  if (!verdict.ok) throw new Error(`rejected: ${verdict.message}`);
  return verdict.event;
}

describe('scrubbing at judging', () => {
  it('filters secret-looking keys at any depth in extra, contexts, request data and breadcrumb data', () => {
    const event = judged({
      extra: { password: 'hunter2', nested: { api_key: 'k', list: [{ sessionid: 's', kept: 1 }] }, note: 'ok' },
      contexts: { order: { id: 'ord_1', Authorization: 'Bearer x' } },
      request: { method: 'POST', url: '/login', data: { user: 'bob', passwd: 'p', credentials: { a: 1 } } },
      breadcrumbs: [{ message: 'm', data: { token: 't', url: '/a' } }],
    });
    expect(event.extra).toEqual({
      password: FILTERED,
      nested: { api_key: FILTERED, list: [{ sessionid: FILTERED, kept: 1 }] },
      note: 'ok',
    });
    expect(event.contexts).toEqual({ order: { id: 'ord_1', Authorization: FILTERED } });
    expect(event.request?.data).toEqual({ user: 'bob', passwd: FILTERED, credentials: FILTERED });
    expect(event.breadcrumbs?.[0]?.data).toEqual({ token: FILTERED, url: '/a' });
  });

  it('drops credential headers whole and filters secrets in query strings and URLs', () => {
    const event = judged({
      url: 'https://shop.example/cart?step=2&access_token=abc#top',
      request: {
        method: 'GET',
        url: 'https://api.example/v1/me?api_key=zzz&page=3',
        query: 'page=3&Secret=s&q=shoes',
        headers: {
          Authorization: 'Bearer t',
          Cookie: 'sid=1',
          'Set-Cookie': 'sid=2',
          'X-Api-Key': 'k',
          'X-Auth-Token': 'k2',
          'User-Agent': 'curl/8',
          Accept: 'application/json',
        },
      },
    });
    expect(event.url).toBe(`https://shop.example/cart?step=2&access_token=${FILTERED}#top`);
    expect(event.request?.url).toBe(`https://api.example/v1/me?api_key=${FILTERED}&page=3`);
    expect(event.request?.query).toBe(`page=3&Secret=${FILTERED}&q=shoes`);
    expect(event.request?.headers).toEqual({ 'User-Agent': 'curl/8', Accept: 'application/json' });
  });

  it('keeps the IP address unless STORE_IP is false, and never keeps "{{auto}}"', () => {
    const user = { id: '42', email: 'ada@example.com', username: 'ada', ip_address: '203.0.113.9' };
    expect(judged({ user }).user).toEqual(user);
    expect(judged({ user }, { storeIp: false }).user).toEqual({ id: '42', email: 'ada@example.com', username: 'ada' });
    expect(judged({ user: { id: '42', ip_address: '{{auto}}' } }).user).toEqual({ id: '42' });
  });

  it('leaves query pairs without a secret key as they were sent', () => {
    expect(scrubbedQuery('a=1&b=%20x&c')).toBe('a=1&b=%20x&c');
    expect(scrubbedQuery('user%5Fpassword=x&a=1')).toBe(`user%5Fpassword=${FILTERED}&a=1`);
    expect(scrubbedUrl('/no/query#token=x')).toBe('/no/query#token=x');
  });
});

describe('bounds at judging: cut, and the cut named', () => {
  it('cuts tags to 50 keys of Sentry characters up to 32, values to 200', () => {
    const tags: Record<string, string> = { 'bad key': 'x', ['k'.repeat(33)]: 'x', long: 'v'.repeat(300) };
    for (let i = 0; i < 60; i++) tags[`t${i}`] = String(i);
    const event = judged({ tags });
    expect(Object.keys(event.tags ?? {})).toHaveLength(eventDataLimits.tags);
    expect(event.tags?.long).toHaveLength(eventDataLimits.tagValueChars);
    expect(event.tags).not.toHaveProperty('bad key');
    expect(event.cut).toEqual(['tags']);
  });

  it('keeps contexts and extra key by key within 8 and 16 KiB, and cuts request data to 8 KiB', () => {
    const big = 'x'.repeat(6000);
    const event = judged({
      contexts: { a: { text: big }, b: { text: big }, c: { small: 1 } },
      extra: { one: big, two: big, three: big, four: 'kept' },
      request: { method: 'POST', url: '/upload', data: { blob: 'y'.repeat(10_000) } },
    });
    expect(Object.keys(event.contexts ?? {})).toEqual(['a', 'c']);
    expect(Object.keys(event.extra ?? {})).toEqual(['one', 'two', 'four']);
    expect(typeof event.request?.data).toBe('string');
    expect(new TextEncoder().encode(event.request?.data as string).length).toBeLessThanOrEqual(8 * 1024);
    expect(event.cut).toEqual(['contexts', 'extra', 'request.data']);
  });

  it('marks nothing when everything fits', () => {
    const event = judged({ tags: { plan: 'pro' }, extra: { a: 1 }, contexts: { os: { name: 'Linux' } } });
    expect(event).not.toHaveProperty('cut');
    expect(event.tags).toEqual({ plan: 'pro' });
  });
});

describe('tagsOf: what an event is counted and searched by', () => {
  it("adds Sentry's derived tags where the event sent none of that name", () => {
    expect(
      tagsOf({
        tags: { plan: 'pro', level: 'custom' },
        level: 'error',
        handled: false,
        contexts: {
          browser: { name: 'Chrome', version: '120.0' },
          os: { name: 'Linux', version: '6.1' },
          runtime: { name: 'node', version: 'v20.11.1' },
          device: { family: 'Desktop' },
        },
        serverName: 'web-1',
        logger: 'payments',
        transaction: 'POST /checkout',
      }),
    ).toEqual({
      plan: 'pro',
      level: 'custom',
      handled: 'no',
      browser: 'Chrome 120.0',
      os: 'Linux 6.1',
      runtime: 'node v20.11.1',
      device: 'Desktop',
      server_name: 'web-1',
      logger: 'payments',
      transaction: 'POST /checkout',
    });
    expect(tagsOf({ handled: null })).toEqual({});
    expect(tagsOf({ handled: true, contexts: { os: { version: '1' } } })).toEqual({ handled: 'yes' });
  });
});

const request = (data: unknown) => ({ request: { url: 'https://shop.example/checkout', data } });

describe('boundEventData: request bodies', () => {
  it('scrubs a body sent as JSON text (as @sentry/node sends it) and keeps it as the value it holds', () => {
    const event = request('{"card_last4":"4242","password":"hunter2","nested":{"api_key":"k"}}');
    boundEventData(event, { storeIp: true });
    expect(event.request.data).toEqual({ card_last4: '4242', password: FILTERED, nested: { api_key: FILTERED } });
  });

  it('scrubs a JSON array of objects sent as text', () => {
    const event = request(' [{"token":"t","id":1}]');
    boundEventData(event, { storeIp: true });
    expect(event.request.data).toEqual([{ token: FILTERED, id: 1 }]);
  });

  it('reads a form-encoded body as a query, and leaves text that is not JSON as it is', () => {
    const form = request('user=ann&password=hunter2');
    boundEventData(form, { storeIp: true });
    expect(form.request.data).toBe(`user=ann&password=${FILTERED}`);
    const broken = request('{"password": "unterminated');
    boundEventData(broken, { storeIp: true });
    expect(broken.request.data).toBe('{"password": "unterminated');
  });

  it('scrubs a body sent as an object', () => {
    const event = request({ password: 'hunter2', items: [{ sessionid: 's' }] });
    boundEventData(event, { storeIp: true });
    expect(event.request.data).toEqual({ password: FILTERED, items: [{ sessionid: FILTERED }] });
  });
});

describe('boundEventData: hostile request bodies sent as JSON text', () => {
  it('neither recurses into a body nested deeper than judging allows nor keeps it', () => {
    const deep = `${'['.repeat(100_000)}{"password":"x"}${']'.repeat(100_000)}`;
    const event = request(deep);
    boundEventData(event, { storeIp: true });
    expect(event.request.data).toBe('[Filtered: nested too deeply to scrub]');
    expect((event as { cut?: string[] }).cut).toEqual(['request.data']);
  });

  it('makes what the text held storable (a \\u0000 escape is a NUL once parsed)', () => {
    const event = request('{"note":"a\\u0000b"}');
    boundEventData(event, { storeIp: true });
    expect(event.request.data).toEqual({ note: 'ab' });
  });
});

describe('scrubbing and __proto__ keys', () => {
  it('keeps a __proto__ key parsed from JSON as data, polluting nothing', () => {
    const extra = JSON.parse('{"__proto__": {"password": "x", "polluted": true}, "token": "t"}');
    const event = { extra, cut: undefined as string[] | undefined };
    boundEventData(event, { storeIp: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(event.extra)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(event.extra))).toEqual(
      JSON.parse('{"__proto__": {"password": "[Filtered]", "polluted": true}, "token": "[Filtered]"}'),
    );
  });
});
