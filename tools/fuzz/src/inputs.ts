// Generated hostile requests for every endpoint: bodies, queries, paths, headers and encodings (fast-check
// arbitraries). Each input starts from something close to valid and breaks it in one or more ways, so the service's
// deeper layers are reached too, not only its first JSON check.
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { RawRequest } from './transport';

/** What a run has set up beforehand through the API. */
export interface Fixtures {
  /** A live token that the fuzzer must not end (it never logs it out). */
  token: string;
  /** A token only the logout endpoint may use (and end). */
  spareToken: string;
  /** Another user's token: their data must never show up in answers about ours. */
  otherToken: string;
  appKey: string;
  /** An app of the other user. */
  otherAppKey: string;
  /** `<appKey>:<fingerprint>` of an issue that exists. */
  issueId: string;
  email: string;
  password: string;
}

export const endpoints = [
  'auth.register',
  'auth.login',
  'auth.logout',
  'auth.me',
  'apps.list',
  'apps.create',
  'events.ingest',
  'overview',
  'overview.timeseries',
  'issues.list',
  'issues.get',
  'routing',
] as const;

export type Endpoint = (typeof endpoints)[number];

export interface FuzzInput {
  endpoint: Endpoint;
  /** How the request was made hostile, for the counts and for reproducing a failure. */
  kind: string;
  request: RawRequest;
}

// ---------------------------------------------------------------------------------------------------------------
// Values

const edgeStrings = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\ufeff',
  '\u202eevil',
  '\u200b',
  'e\u0301',
  '𝕏😀👩‍👩‍👧',
  'İ',
  'ß',
  '\u2028\u2029',
  '\r\n',
  '%00',
  '%',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '"; drop table users; --',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, meant literally
  '${7*7}',
  '../../etc/passwd',
  'null',
  'undefined',
  'NaN',
  '0x10',
  '1e400',
  '-0',
  '__proto__',
  'constructor',
  'session_',
  'evt_',
  'web_',
];

const pollutingKeys = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__defineGetter__',
  'isAdmin',
  'then',
];

const hugeSizes = [1_000, 70_000, 300_000, 1_100_000];

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...edgeStrings), weight: 4 },
  { arbitrary: fc.string({ maxLength: 40 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }), weight: 2 },
  { arbitrary: fc.constantFrom(...hugeSizes).map((size) => 'x'.repeat(size)), weight: 1 },
);

const hostileKey: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...pollutingKeys), weight: 3 },
  { arbitrary: hostileString.filter((key) => key.length < 100), weight: 2 },
);

const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(
    0,
    -0,
    -1,
    1,
    0.5,
    2 ** 31,
    2 ** 53,
    2 ** 53 + 2,
    -(2 ** 63),
    1e20,
    1e308,
    -1e308,
    Number.MIN_VALUE,
    8_640_000_000_000_001,
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Defines `key` as an own property, `__proto__` included (a plain assignment would set the prototype instead). */
function withOwn(target: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  return target;
}

export const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    hostileNumber,
    hostileString,
    fc.array(tie('value'), { maxLength: 5 }),
    fc
      .array(fc.tuple(hostileKey, tie('value')), { maxLength: 5 })
      .map((entries) =>
        entries.reduce<Record<string, unknown>>((object, [key, value]) => withOwn(object, key, value), {}),
      ),
  ),
})).value;

// ---------------------------------------------------------------------------------------------------------------
// Bodies: a valid object, then broken

type Mutation =
  | { op: 'drop'; index: number }
  | { op: 'replace'; index: number; value: unknown }
  | { op: 'extra'; key: string; value: unknown };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('drop' as const), index: fc.nat() }),
  fc.record({ op: fc.constant('replace' as const), index: fc.nat(), value: hostileJson }),
  fc.record({ op: fc.constant('extra' as const), key: hostileKey, value: hostileJson }),
);

function applyMutations(valid: Record<string, unknown>, mutations: Mutation[]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(valid)) withOwn(result, key, value);
  for (const change of mutations) {
    const keys = Object.keys(result);
    if (change.op === 'extra') withOwn(result, change.key, change.value);
    else if (keys.length > 0) {
      const key = keys[change.index % keys.length] as string;
      if (change.op === 'drop') delete result[key];
      else withOwn(result, key, change.value);
    }
  }
  return result;
}

/** A valid object most of the time, otherwise one to three fields dropped, replaced or added. */
function mutated(
  valid: fc.Arbitrary<Record<string, unknown>>,
): fc.Arbitrary<{ value: Record<string, unknown>; kind: string }> {
  return fc.oneof(
    { arbitrary: valid.map((value) => ({ value, kind: 'valid' })), weight: 2 },
    {
      arbitrary: fc.tuple(valid, fc.array(mutation, { minLength: 1, maxLength: 3 })).map(([value, mutations]) => ({
        value: applyMutations(value, mutations),
        kind: `fields:${mutations.map((each) => each.op).join('+')}`,
      })),
      weight: 3,
    },
  );
}

const utf8 = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

const deepArray = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const deepObject = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

/** Bytes that are not UTF-8: a lone continuation byte, an overlong '/', an encoded surrogate, 0xFF. */
const invalidUtf8 = [
  Buffer.from([0x80]),
  Buffer.from([0xc0, 0xaf]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xff, 0xfe]),
  Buffer.from([0xc3, 0x28]),
];

/** Serialises `value`, then maybe corrupts the bytes. */
function encodedBody(
  value: fc.Arbitrary<{ value: unknown; kind: string }>,
): fc.Arbitrary<{ body: Uint8Array; kind: string }> {
  const json = value.map(({ value: body, kind }) => ({ text: JSON.stringify(body) ?? 'null', kind }));
  return fc.oneof(
    { arbitrary: json.map(({ text, kind }) => ({ body: utf8(text), kind })), weight: 10 },
    {
      // A deep structure spliced into the first field: JSON.stringify could never make one this deep.
      arbitrary: fc
        .tuple(json, fc.constantFrom(100, 1_000, 20_000, 200_000), fc.boolean())
        .map(([{ text, kind }, levels, arrays]) => ({
          body: utf8(
            text.startsWith('{"')
              ? text.replace(
                  /^\{"((?:[^"\\]|\\.)*)":/,
                  `{"$1":${arrays ? deepArray(levels) : deepObject(levels)},"__was":`,
                )
              : arrays
                ? deepArray(levels)
                : deepObject(levels),
          ),
          kind: `${kind}+nested${levels}`,
        })),
      weight: 1,
    },
    {
      arbitrary: fc.tuple(json, fc.nat(), fc.constantFrom(...invalidUtf8)).map(([{ text, kind }, at, bytes]) => {
        // Inside a string if there is one, so the JSON is otherwise well formed.
        const quote = text.indexOf('"', Math.min(at, Math.max(0, text.length - 1)));
        const cut = quote > 0 ? quote + 1 : 0;
        return {
          body: new Uint8Array(Buffer.concat([Buffer.from(text.slice(0, cut)), bytes, Buffer.from(text.slice(cut))])),
          kind: `${kind}+invalid-utf8`,
        };
      }),
      weight: 1,
    },
    {
      arbitrary: fc.tuple(json, fc.nat()).map(([{ text, kind }, at]) => ({
        body: utf8(text.slice(0, at % Math.max(1, text.length))),
        kind: `${kind}+truncated`,
      })),
      weight: 1,
    },
    { arbitrary: json.map(({ text, kind }) => ({ body: utf8(`\ufeff${text}`), kind: `${kind}+bom` })), weight: 1 },
    {
      arbitrary: json.map(({ text, kind }) => ({
        body: new Uint8Array(Buffer.from(text, 'utf16le')),
        kind: `${kind}+utf16`,
      })),
      weight: 1,
    },
    {
      arbitrary: fc
        .constantFrom(
          '',
          'null',
          '[]',
          '"x"',
          '42',
          'true',
          '{',
          '}',
          '{}{}',
          'nope',
          '{"a":1,}',
          "{'a':1}",
          '{"a":NaN}',
          '{"a":1e999}',
          '{"__proto__":{"polluted":1}}',
        )
        .map((text) => ({
          body: utf8(text),
          kind: `raw:${text.slice(0, 12)}`,
        })),
      weight: 2,
    },
    {
      arbitrary: fc
        .constantFrom(...hugeSizes)
        .map((size) => ({ body: utf8(`{"pad":"${'x'.repeat(size)}"}`), kind: `huge${size}` })),
      weight: 1,
    },
    {
      arbitrary: fc
        .constantFrom(10_000, 200_000)
        .map((size) => ({ body: utf8(`{"pad":[${new Array(size).fill(0).join(',')}]}`), kind: `array${size}` })),
      weight: 1,
    },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Headers and encodings

const bombs = new Map<string, Uint8Array>();
/** 10 MB of JSON-looking text that compresses to a few KB. */
function bomb(encoding: 'gzip' | 'deflate' | 'br'): Uint8Array {
  let compressed = bombs.get(encoding);
  if (!compressed) {
    const inflated = Buffer.concat([
      Buffer.from('{"appKey":"web_x","events":["'),
      Buffer.alloc(10 * 1024 * 1024, 'a'),
      Buffer.from('"]}'),
    ]);
    compressed = new Uint8Array(
      encoding === 'gzip'
        ? gzipSync(inflated, { level: 9 })
        : encoding === 'deflate'
          ? deflateSync(inflated, { level: 9 })
          : brotliCompressSync(inflated),
    );
    bombs.set(encoding, compressed);
  }
  return compressed;
}

const contentTypes = [
  'text/plain',
  'text/plain;charset=UTF-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/jsonp',
  'APPLICATION/JSON',
  'application/json, text/plain',
  '*/*',
  'garbage',
  ';',
];

type Encoding = { header?: string; encode: (body: Uint8Array) => Uint8Array; kind: string };

const encodings: fc.Arbitrary<Encoding> = fc.oneof(
  { arbitrary: fc.constant<Encoding>({ encode: (body) => body, kind: '' }), weight: 12 },
  {
    arbitrary: fc.constantFrom<Encoding>(
      { header: 'gzip', encode: (body) => new Uint8Array(gzipSync(body)), kind: '+gzip' },
      { header: 'deflate', encode: (body) => new Uint8Array(deflateSync(body)), kind: '+deflate' },
      { header: 'br', encode: (body) => new Uint8Array(brotliCompressSync(body)), kind: '+br' },
      { header: 'identity', encode: (body) => body, kind: '+identity' },
      { header: 'gzip', encode: (body) => body, kind: '+gzip-not-gzipped' },
      { header: 'gzip', encode: (body) => new Uint8Array(gzipSync(body)).subarray(0, 12), kind: '+gzip-truncated' },
      { header: 'compress', encode: (body) => body, kind: '+compress' },
      { header: 'x-unknown', encode: (body) => body, kind: '+unknown-encoding' },
      { header: 'gzip, gzip', encode: (body) => new Uint8Array(gzipSync(gzipSync(body))), kind: '+gzip-twice' },
      { header: 'gzip', encode: () => bomb('gzip'), kind: '+gzip-bomb' },
      { header: 'deflate', encode: () => bomb('deflate'), kind: '+deflate-bomb' },
      { header: 'br', encode: () => bomb('br'), kind: '+br-bomb' },
    ),
    weight: 3,
  },
);

/** Header values http.request accepts: printable Latin-1, no CR or LF. */
const headerText = fc.string({
  unit: fc
    .integer({ min: 0x20, max: 0xff })
    .filter((code) => code < 0x7f || code > 0x9f)
    .map((code) => String.fromCharCode(code)),
  maxLength: 60,
});

function authorization(fixtures: Fixtures, own: string): fc.Arbitrary<{ value?: string; kind: string }> {
  return fc.oneof(
    { arbitrary: fc.constant({ value: `Bearer ${own}`, kind: 'own-token' }), weight: 8 },
    {
      arbitrary: fc.constantFrom(
        { kind: 'no-token' },
        { value: `bearer ${own}`, kind: 'lower-case-scheme' },
        { value: `Bearer  ${own}`, kind: 'double-space' },
        { value: `Bearer ${own} `, kind: 'trailing-space' },
        { value: `Bearer ${own}x`, kind: 'token+1' },
        { value: `Bearer ${own.slice(0, -1)}`, kind: 'token-1' },
        { value: `Bearer ${own.toUpperCase()}`, kind: 'upper-case-token' },
        { value: `Bearer ${fixtures.otherToken}`, kind: 'other-user-token' },
        { value: 'Bearer session_', kind: 'empty-secret' },
        { value: `Bearer session_${'a'.repeat(31)}`, kind: 'unknown-token' },
        { value: `Bearer session_${'a'.repeat(5000)}`, kind: 'long-token' },
        { value: `Basic ${Buffer.from(`${fixtures.email}:${fixtures.password}`).toString('base64')}`, kind: 'basic' },
        { value: 'Bearer', kind: 'scheme-only' },
        { value: own, kind: 'no-scheme' },
      ),
      weight: 3,
    },
    { arbitrary: headerText.map((text) => ({ value: `Bearer ${text}`, kind: 'garbage-token' })), weight: 1 },
    { arbitrary: headerText.map((text) => ({ value: text, kind: 'garbage-header' })), weight: 1 },
  );
}

const otherMethods = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND'];

function method(documented: 'GET' | 'POST'): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constant(documented), weight: 12 },
    { arbitrary: fc.constantFrom(...otherMethods), weight: 1 },
  );
}

/** A POST endpoint: mutated body, content type, encoding, maybe a token. */
function postRequest(
  endpoint: Endpoint,
  path: string,
  body: fc.Arbitrary<{ value: unknown; kind: string }>,
  auth: fc.Arbitrary<{ value?: string; kind: string }> | undefined,
  allowedTypes: string[],
): fc.Arbitrary<FuzzInput> {
  const contentType = fc.oneof(
    { arbitrary: fc.constantFrom(...allowedTypes, 'application/json; charset=utf-8'), weight: 12 },
    { arbitrary: fc.constant(undefined), weight: 1 },
    { arbitrary: fc.constantFrom(...contentTypes), weight: 2 },
  );
  return fc
    .record({
      method: method('POST'),
      encoded: encodedBody(body),
      encoding: encodings,
      contentType,
      auth: auth ?? fc.constant<{ value?: string; kind: string }>({ kind: '' }),
      noBody: fc.nat(30),
    })
    .map(({ method: verb, encoded, encoding, contentType: type, auth: token, noBody }) => {
      const headers: Record<string, string> = {};
      if (type) headers['content-type'] = type;
      if (encoding.header) headers['content-encoding'] = encoding.header;
      if (token.value !== undefined) headers.authorization = token.value;
      const withoutBody = noBody === 0;
      const kind = [
        verb !== 'POST' ? verb : '',
        token.kind,
        withoutBody ? 'no-body' : `${encoded.kind}${encoding.kind}`,
        type && !allowedTypes.includes(type) ? `type:${type}` : '',
      ]
        .filter(Boolean)
        .join(' ');
      return {
        endpoint,
        kind,
        request: { method: verb, path, headers, body: withoutBody ? undefined : encoding.encode(encoded.body) },
      };
    });
}

// ---------------------------------------------------------------------------------------------------------------
// Query strings and paths

/** A query value: sensible, wrong, or not even valid percent-encoding. */
function queryValue(sensible: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...sensible).map(encodeURIComponent), weight: 6 },
    {
      arbitrary: fc.constantFrom(
        '',
        'abc',
        '-1',
        '0',
        '1e3',
        '1.5',
        ' 1',
        '0x10',
        '99999999999999999999',
        'true',
        'null',
        '%',
        '%zz',
        '%C0%AF',
        '%00',
        '%ED%A0%80',
        '%FF',
        '+',
        '[]',
        '{}',
      ),
      weight: 4,
    },
    { arbitrary: hostileString.filter((text) => text.length < 5000).map((text) => safeEncode(text)), weight: 2 },
  );
}

function safeEncode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return text.replace(/[^A-Za-z0-9]/g, (char) => `%${(char.charCodeAt(0) & 0xff).toString(16).padStart(2, '0')}`);
  }
}

function queryString(params: Record<string, string[]>): fc.Arbitrary<{ query: string; kind: string }> {
  const names = Object.keys(params);
  const pair = fc.oneof(
    {
      arbitrary: fc
        .constantFrom(...names)
        .chain((name) => queryValue(params[name] ?? []).map((value) => `${name}=${value}`)),
      weight: 6,
    },
    { arbitrary: fc.constantFrom(...names).map((name) => name), weight: 1 },
    {
      arbitrary: fc.tuple(hostileKey, queryValue(['x'])).map(([key, value]) => `${safeEncode(key)}=${value}`),
      weight: 1,
    },
    {
      arbitrary: fc.constantFrom(
        '__proto__[polluted]=1',
        'constructor[prototype][polluted]=1',
        'a[b][c]=1',
        'limit[]=1',
        '&&',
        '=',
        '=x',
        '%=%',
        'appKey=a&appKey=b',
      ),
      weight: 1,
    },
  );
  return fc.array(pair, { maxLength: 5 }).map((pairs) => ({
    query: pairs.length ? `?${pairs.join('&')}` : '',
    kind: pairs.length ? `query:${pairs.length}` : 'no-query',
  }));
}

function getRequest(
  endpoint: Endpoint,
  path: fc.Arbitrary<{ path: string; kind: string }>,
  auth: fc.Arbitrary<{ value?: string; kind: string }>,
  params: Record<string, string[]>,
): fc.Arbitrary<FuzzInput> {
  return fc
    .record({
      method: method('GET'),
      path,
      query: queryString(params),
      auth,
      body: fc.option(hostileJson, { freq: 20 }),
    })
    .map(({ method: verb, path: target, query, auth: token, body }) => {
      const headers: Record<string, string> = {};
      if (token.value !== undefined) headers.authorization = token.value;
      // A GET with a body: the body must simply be ignored.
      const payload = body === null ? undefined : utf8(JSON.stringify(body) ?? 'null');
      if (payload) headers['content-type'] = 'application/json';
      const kind = [verb !== 'GET' ? verb : '', token.kind, target.kind, query.kind, payload ? 'get-with-body' : '']
        .filter(Boolean)
        .join(' ');
      return {
        endpoint,
        kind,
        request: { method: verb, path: `${target.path}${query.query}`, headers, body: payload },
      };
    });
}

// ---------------------------------------------------------------------------------------------------------------
// Events

let eventCounter = 0;

const eventIdArb = fc.oneof(
  { arbitrary: fc.stringMatching(/^evt_[A-Za-z0-9_-]{1,64}$/), weight: 8 },
  {
    arbitrary: fc.constantFrom('evt_', 'evt_dup', 'evt_dup', `evt_${'a'.repeat(65)}`, 'EVT_x', 'evt_ x', 'evt_\u00e9'),
    weight: 2,
  },
);

/** An event an SDK could send, before any mutation. */
function validEvent(fixtures: Fixtures): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .record({
      eventId: eventIdArb,
      type: fc.constantFrom('error', 'request'),
      ageMs: fc.oneof(fc.integer({ min: 0, max: 3_600_000 }), fc.constantFrom(-120_000, 40 * 24 * 3_600_000)),
      message: fc.oneof(
        fc.string({ maxLength: 80 }),
        fc.constantFrom(`Cannot read properties of undefined (reading 'id')`, 'x'.repeat(9000)),
      ),
      errorType: fc.constantFrom('TypeError', 'Error', 'ReferenceError', 'NetworkError'),
      anonymousId: fc.option(fc.stringMatching(/^anon_[a-z0-9]{1,8}$/)),
      fingerprint: fc.option(fc.constantFrom('js:fuzz', 'js:other', 'Type.Error:abc-1')),
      withRequest: fc.boolean(),
      breadcrumbs: fc.nat(3),
      sameAppKey: fc.nat(20),
    })
    .map((seed) => {
      eventCounter++;
      const event: Record<string, unknown> = {
        eventId: seed.eventId,
        type: seed.type,
        timestamp: Date.now() - seed.ageMs,
        platform: 'web',
        sdkVersion: '1.4.2',
        sessionId: 'session_tab1',
        errorType: seed.errorType,
        message: seed.message,
        stack: `${seed.errorType}: ${seed.message.slice(0, 40)}\n    at render (https://shop.example/app.${eventCounter % 7}.js:10:20)`,
        url: 'https://shop.example/cart',
        userAgent: 'Mozilla/5.0',
        release: '1.0.0',
        environment: 'production',
        breadcrumbs: Array.from({ length: seed.breadcrumbs }, (_, index) => ({
          timestamp: Date.now(),
          category: 'ui.click',
          message: `click ${index}`,
          level: 'info',
          data: { index },
        })),
      };
      if (seed.anonymousId) event.anonymousId = seed.anonymousId;
      if (seed.fingerprint) event.fingerprint = seed.fingerprint;
      if (seed.type === 'request' || seed.withRequest)
        event.request = { method: 'GET', url: 'https://api.example/items/42', status: 500, durationMs: 120 };
      // Sometimes the event names its app: ours, or someone else's (it must then be rejected).
      if (seed.sameAppKey === 0) event.appKey = fixtures.appKey;
      if (seed.sameAppKey === 1) event.appKey = fixtures.otherAppKey;
      return event;
    });
}

function ingestBody(fixtures: Fixtures): fc.Arbitrary<{ value: unknown; kind: string }> {
  const event = mutated(validEvent(fixtures));
  const events = fc.oneof(
    {
      arbitrary: fc.array(event, { minLength: 1, maxLength: 10 }).map((list) => ({
        value: list.map((each) => each.value),
        kind: `events:${list
          .map((each) => each.kind)
          .join(',')
          .slice(0, 60)}`,
      })),
      weight: 8,
    },
    {
      arbitrary: fc
        .array(event, { minLength: 45, maxLength: 55 })
        .map((list) => ({ value: list.map((each) => each.value), kind: `events-x${list.length}` })),
      weight: 1,
    },
    { arbitrary: fc.constant({ value: [], kind: 'no-events' }), weight: 1 },
    { arbitrary: hostileJson.map((value) => ({ value, kind: 'events-hostile' })), weight: 1 },
    {
      arbitrary: fc
        .array(hostileJson, { minLength: 1, maxLength: 5 })
        .map((value) => ({ value, kind: 'events-of-hostile' })),
      weight: 2,
    },
  );
  const appKey = fc.oneof(
    { arbitrary: fc.constant(fixtures.appKey), weight: 8 },
    {
      arbitrary: fc.constantFrom(
        fixtures.otherAppKey,
        `${fixtures.appKey}x`,
        fixtures.appKey.toUpperCase(),
        'web_',
        '',
      ),
      weight: 1,
    },
    { arbitrary: hostileJson, weight: 1 },
  );
  return fc.record({ appKey, events }).chain(({ appKey: key, events: list }) =>
    mutated(fc.constant({ appKey: key, events: list.value })).map(({ value, kind }) => ({
      value,
      kind: `${kind} ${list.kind}`,
    })),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Endpoints

const emailArb = fc.oneof(
  { arbitrary: fc.emailAddress(), weight: 4 },
  {
    arbitrary: fc.constantFrom(
      'A@B.CO',
      ' padded@example.com ',
      `${'a'.repeat(250)}@example.com`,
      'no-at-sign',
      '@example.com',
      'a@',
      'a@b',
      'a@@b.com',
      'ü@exämple.com',
    ),
    weight: 2,
  },
  { arbitrary: hostileString, weight: 1 },
);

const passwordArb = fc.oneof(
  { arbitrary: fc.string({ minLength: 8, maxLength: 40 }), weight: 4 },
  {
    arbitrary: fc.constantFrom(
      'password123',
      'short',
      'x'.repeat(128),
      'x'.repeat(129),
      '        ',
      '\u0000'.repeat(8),
    ),
    weight: 2,
  },
  { arbitrary: hostileString, weight: 1 },
);

export function endpointArbitrary(endpoint: Endpoint, fixtures: Fixtures): fc.Arbitrary<FuzzInput> {
  const own = authorization(fixtures, fixtures.token);
  const json = ['application/json'];
  const appKeys = [fixtures.appKey, fixtures.otherAppKey, `${fixtures.appKey.slice(0, -1)}0`, 'web_unknown'];
  const times = ['0', String(Date.now() - 86_400_000), String(Date.now()), '8640000000000000', '8640000000000001'];
  switch (endpoint) {
    case 'auth.register':
      return postRequest(
        endpoint,
        '/api/auth/register',
        mutated(fc.record({ email: emailArb, password: passwordArb })),
        undefined,
        json,
      );
    case 'auth.login':
      return postRequest(
        endpoint,
        '/api/auth/login',
        mutated(
          fc.oneof(
            fc.constant({ email: fixtures.email, password: fixtures.password }),
            fc.record({ email: fc.oneof(fc.constant(fixtures.email), emailArb), password: passwordArb }),
          ),
        ),
        undefined,
        json,
      );
    case 'auth.logout':
      // The spare token may be ended (then it is a logged-out token); the fixtures' own token never is.
      return postRequest(
        endpoint,
        '/api/auth/logout',
        fc.oneof(
          fc.constant({ value: {}, kind: 'empty' }),
          hostileJson.map((value) => ({ value, kind: 'hostile' })),
        ),
        authorization(fixtures, fixtures.spareToken),
        json,
      );
    case 'auth.me':
      return getRequest(endpoint, fc.constant({ path: '/api/auth/me', kind: '' }), own, { x: ['1'] });
    case 'apps.list':
      return getRequest(endpoint, fc.constant({ path: '/api/apps', kind: '' }), own, { limit: ['1'] });
    case 'apps.create':
      return postRequest(
        endpoint,
        '/api/apps',
        mutated(
          fc.record({
            name: fc.oneof(
              fc.string({ minLength: 1, maxLength: 100 }),
              fc.constantFrom('  ', 'x'.repeat(101), ' padded '),
            ),
            type: fc.constantFrom(
              'web',
              'node',
              'ios',
              'android',
              'react-native',
              'flutter',
              'electron',
              'other',
              'WEB',
              'desktop',
              '',
            ),
          }),
        ),
        own,
        json,
      );
    case 'events.ingest':
      return postRequest(
        endpoint,
        '/api/events/batch',
        ingestBody(fixtures),
        fc.oneof({ arbitrary: fc.constant({ kind: '' }), weight: 10 }, { arbitrary: own, weight: 1 }),
        ['application/json', 'text/plain'],
      );
    case 'overview':
      return getRequest(endpoint, fc.constant({ path: '/api/overview', kind: '' }), own, {
        appKey: appKeys,
        from: times,
        to: times,
      });
    case 'overview.timeseries':
      return getRequest(endpoint, fc.constant({ path: '/api/overview/timeseries', kind: '' }), own, {
        appKey: appKeys,
        from: times,
        to: times,
        bucket: ['hour', 'day', 'week', 'HOUR'],
      });
    case 'issues.list':
      return getRequest(endpoint, fc.constant({ path: '/api/issues', kind: '' }), own, {
        appKey: appKeys,
        limit: ['1', '50', '100', '101', '0'],
        cursor: [
          'x',
          Buffer.from(JSON.stringify([Date.now(), fixtures.appKey, 'js:fuzz'])).toString('base64url'),
          Buffer.from('[1,2,3,4]').toString('base64url'),
          Buffer.from('{"__proto__":1}').toString('base64url'),
        ],
      });
    case 'issues.get': {
      const [appKey, ...fingerprint] = fixtures.issueId.split(':');
      const id = fc.oneof(
        {
          arbitrary: fc
            .constantFrom(
              fixtures.issueId,
              encodeURIComponent(fixtures.issueId),
              `${appKey}%3a${fingerprint.join('%3A')}`,
            )
            .map((path) => ({ path, kind: 'own-issue' })),
          weight: 4,
        },
        {
          arbitrary: fc
            .constantFrom(
              `${fixtures.otherAppKey}:js:fuzz`,
              `${appKey}:js:missing`,
              `${appKey}:`,
              `:${fingerprint.join(':')}`,
              `${appKey}`,
              '%',
              '%zz',
              '%E0%A4%A',
              '..',
              '%2e%2e',
              'a%2Fb',
              '%00:a:b',
              'x'.repeat(601),
              'x'.repeat(20_000),
              '__proto__',
              'constructor:prototype',
            )
            .map((path) => ({ path, kind: 'near-id' })),
          weight: 3,
        },
        {
          arbitrary: hostileString
            .filter((text) => text.length > 0 && text.length < 3000)
            .map((text) => ({ path: safeEncode(text), kind: 'hostile-id' })),
          weight: 2,
        },
      );
      return getRequest(
        endpoint,
        id.map(({ path, kind }) => ({ path: `/api/issues/${path}`, kind })),
        own,
        { limit: ['1', '50', '100', '101', '0'] },
      );
    }
    case 'routing':
      return fc
        .record({
          path: fc.oneof(
            fc.constantFrom(
              '/',
              '/api',
              '/api/',
              '/api/apps/',
              '/api//apps',
              '/API/APPS',
              '/api/issues/',
              '/api/issues/a/b',
              '/healthz',
              '/readyz',
              '/api/openapi.json',
              '/trpc',
              '/%',
              '/%zz',
              '/..%2f..%2fetc%2fpasswd',
              '/api/auth',
              '/api/events',
              `/${'a'.repeat(9000)}`,
            ),
            hostileString.filter((text) => text.length < 3000).map((text) => `/${safeEncode(text)}`),
          ),
          method: fc.constantFrom(...otherMethods),
          auth: own,
        })
        .map(
          ({ path, method: verb, auth }): FuzzInput => ({
            endpoint,
            kind: `${verb} ${path.slice(0, 30)}`,
            request: { method: verb, path, headers: auth.value === undefined ? {} : { authorization: auth.value } },
          }),
        );
  }
}

/** Every endpoint, about evenly. */
export function anyInputArbitrary(fixtures: Fixtures): fc.Arbitrary<FuzzInput> {
  return fc.oneof(...endpoints.map((endpoint) => endpointArbitrary(endpoint, fixtures)));
}
