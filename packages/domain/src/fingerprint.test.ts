import { describe, expect, it } from 'vitest';
import {
  computeFingerprint,
  fingerprintPrefix,
  hash64,
  normalizeMessage,
  normalizeUrl,
  topFrames,
} from './fingerprint';

const FINGERPRINT = /^[A-Za-z0-9._-]{1,64}:[0-9a-f]{16}$/;

const v8Stack = (file: string, line = 10, column = 5) =>
  [
    'TypeError: Cannot read properties of undefined',
    `    at loadUser (https://cdn.example.com/static/js/${file}:${line}:${column})`,
    `    at async renderProfile (https://cdn.example.com/static/js/${file}:${line + 20}:${column + 1})`,
    `    at https://cdn.example.com/static/js/vendor.js:1:${column + 100}`,
  ].join('\n');

describe('normalizeMessage', () => {
  it('replaces numbers, uuids, hex ids and URLs with placeholders', () => {
    expect(normalizeMessage('User 42 not found')).toBe('User <n> not found');
    expect(normalizeMessage('took 1.25 seconds')).toBe('took <n> seconds');
    expect(normalizeMessage('order 550e8400-e29b-41d4-a716-446655440000 missing')).toBe('order <uuid> missing');
    expect(normalizeMessage('order 550E8400-E29B-41D4-A716-446655440000 missing')).toBe('order <uuid> missing');
    expect(normalizeMessage('object 5f3a9c2e81d4b7a6c3e1f0d9 gone')).toBe('object <n> gone');
    expect(normalizeMessage('bad pointer 0xdeadbeef')).toBe('bad pointer <n>');
    expect(normalizeMessage('GET https://api.example.com/users/7?x=1 failed')).toBe('GET <url> failed');
  });

  it('keeps plain words, even ones made of hex letters', () => {
    expect(normalizeMessage('deadbeef facade decade')).toBe('deadbeef facade decade');
    expect(normalizeMessage('Cannot read properties of undefined')).toBe('Cannot read properties of undefined');
  });

  it('collapses and trims whitespace', () => {
    expect(normalizeMessage('  a \n\t b  ')).toBe('a b');
  });
});

describe('normalizeUrl', () => {
  it('drops query and fragment and replaces id segments', () => {
    expect(normalizeUrl('https://api.example.com/users/123/orders/456?page=2#top')).toBe(
      'https://api.example.com/users/<id>/orders/<id>',
    );
    expect(normalizeUrl('/items/550e8400-e29b-41d4-a716-446655440000')).toBe('/items/<id>');
  });

  it('keeps hosts, ports and file names with dots', () => {
    expect(normalizeUrl('http://localhost:3000/api/users')).toBe('http://localhost:3000/api/users');
    expect(normalizeUrl('https://api2.example.com/static/app.3f9a2c1b.js')).toBe(
      'https://api2.example.com/static/app.3f9a2c1b.js',
    );
  });
});

describe('topFrames', () => {
  it('parses V8 frames, with and without a function name', () => {
    expect(topFrames(v8Stack('app.js'))).toEqual(['loadUser@app.js', 'async renderProfile@app.js', '?@vendor.js']);
  });

  it('parses V8 frames of Node paths', () => {
    const stack =
      'Error: boom\n    at Object.<anonymous> (/srv/app/src/index.js:12:3)\n    at new Foo (/srv/app/src/foo.js:1:1)';
    expect(topFrames(stack)).toEqual(['Object.<anonymous>@index.js', 'new Foo@foo.js']);
  });

  it('parses Firefox / Safari frames, including anonymous ones', () => {
    const stack =
      'loadUser@https://cdn.example.com/app.js:10:5\nrenderProfile@https://cdn.example.com/app.js:30:6\n@https://cdn.example.com/vendor.js:1:100';
    expect(topFrames(stack)).toEqual(['loadUser@app.js', 'renderProfile@app.js', '?@vendor.js']);
  });

  it('keeps the function name when the path holds an @ (scoped packages)', () => {
    expect(topFrames('fn@https://x.test/node_modules/@scope/pkg/index.js:1:2')).toEqual(['fn@index.js']);
  });

  it('leaves out line and column and replaces bundle content hashes', () => {
    expect(topFrames('    at fn (https://x.test/app.3f9a2c1b.js:1:2)')).toEqual(['fn@app.<hash>.js']);
    expect(topFrames('    at fn (https://x.test/app-77aa01ff.js:99:42)')).toEqual(['fn@app.<hash>.js']);
    expect(topFrames('    at fn (https://x.test/app.js?v=3:1:2)')).toEqual(['fn@app.js']);
  });

  it('returns at most `count` frames', () => {
    const stack = Array.from({ length: 10 }, (_, i) => `    at f${i} (a.js:${i}:1)`).join('\n');
    expect(topFrames(stack)).toEqual(['f0@a.js', 'f1@a.js', 'f2@a.js', 'f3@a.js', 'f4@a.js']);
    expect(topFrames(stack, 2)).toEqual(['f0@a.js', 'f1@a.js']);
  });

  it('skips lines that are not frames', () => {
    expect(topFrames('TypeError: x is not a function\n\n    at fn (a.js:1:1)')).toEqual(['fn@a.js']);
    expect(topFrames('')).toEqual([]);
  });
});

describe('fingerprintPrefix', () => {
  it('slugs characters a fingerprint does not allow', () => {
    expect(fingerprintPrefix('TypeError')).toBe('TypeError');
    expect(fingerprintPrefix('My Error<T>')).toBe('My_Error_T_');
    expect(fingerprintPrefix('日本語Error')).toBe('_Error');
    expect(fingerprintPrefix('a.b-c_d')).toBe('a.b-c_d');
    expect(fingerprintPrefix('')).toBe('error');
    expect(fingerprintPrefix('E'.repeat(100))).toBe('E'.repeat(64));
  });
});

describe('hash64', () => {
  it('is 16 lower-case hex characters, deterministic, and input-sensitive', () => {
    expect(hash64('')).toMatch(/^[0-9a-f]{16}$/);
    expect(hash64('abc')).toMatch(/^[0-9a-f]{16}$/);
    expect(hash64('abc')).toBe(hash64('abc'));
    expect(hash64('abc')).not.toBe(hash64('abd'));
    expect(hash64('ab')).not.toBe(hash64('ba'));
  });

  it('has a stable value (SDKs must compute the same hash)', () => {
    // FNV-1a offset basis for the first half: the empty string hashes to the bases.
    expect(hash64('')).toBe('811c9dc5cbf29ce4');
  });
});

describe('computeFingerprint', () => {
  const base = { errorType: 'TypeError', message: 'Cannot read properties of undefined', stack: v8Stack('app.js') };

  it('has the shape <errorType>:<16 hex>', () => {
    const fingerprint = computeFingerprint(base);
    expect(fingerprint).toMatch(FINGERPRINT);
    expect(fingerprint.startsWith('TypeError:')).toBe(true);
    expect(computeFingerprint({ errorType: 'error' })).toMatch(FINGERPRINT);
  });

  it('slugs an errorType with odd characters into the prefix', () => {
    const fingerprint = computeFingerprint({ errorType: 'My Error<T> 💥', message: 'x' });
    expect(fingerprint).toMatch(FINGERPRINT);
    expect(fingerprint.split(':')[0]).toBe('My_Error_T_');
    expect(computeFingerprint({ errorType: 'X'.repeat(200) })).toMatch(FINGERPRINT);
  });

  it('is deterministic', () => {
    expect(computeFingerprint(base)).toBe(computeFingerprint({ ...base }));
  });

  it('ignores numbers, uuids, hex ids and URLs in the message', () => {
    const a = computeFingerprint({
      errorType: 'Error',
      message:
        'User 42 (550e8400-e29b-41d4-a716-446655440000) object 5f3a9c2e81d4 failed at https://a.example.com/u/42?x=1 after 3.5s',
    });
    const b = computeFingerprint({
      errorType: 'Error',
      message:
        'User 9001 (123e4567-e89b-12d3-a456-426614174000) object a1b2c3d4e5f6 failed at http://b.example.org/other/path after 12s',
    });
    expect(a).toBe(b);
  });

  it('changes with a different message', () => {
    expect(computeFingerprint({ ...base, message: 'x is not a function' })).not.toBe(computeFingerprint(base));
  });

  it('changes with a different errorType', () => {
    expect(computeFingerprint({ ...base, errorType: 'RangeError' })).not.toBe(computeFingerprint(base));
  });

  it('changes with different top frames', () => {
    const other = base.stack.replace('loadUser', 'saveUser');
    expect(computeFingerprint({ ...base, stack: other })).not.toBe(computeFingerprint(base));
    expect(computeFingerprint({ ...base, stack: undefined })).not.toBe(computeFingerprint(base));
  });

  it('does not change with line and column numbers', () => {
    expect(computeFingerprint({ ...base, stack: v8Stack('app.js', 999, 77) })).toBe(computeFingerprint(base));
  });

  it('does not change with the bundle content hash', () => {
    const before = computeFingerprint({ ...base, stack: v8Stack('app.3f9a2c1b.js') });
    const after = computeFingerprint({ ...base, stack: v8Stack('app.77aa01ff.js', 11, 9) });
    expect(after).toBe(before);
    expect(before).not.toBe(computeFingerprint({ ...base, stack: v8Stack('other.3f9a2c1b.js') }));
  });

  it('does not change with line and column in Firefox frames', () => {
    const firefox = (line: number) =>
      `loadUser@https://x.test/app.js:${line}:3\nrender@https://x.test/app.js:${line + 5}:1`;
    expect(computeFingerprint({ ...base, stack: firefox(1) })).toBe(
      computeFingerprint({ ...base, stack: firefox(500) }),
    );
  });

  it('groups request events by method, normalised URL path and status', () => {
    const request = (method: string, url: string, status?: number) =>
      computeFingerprint({ errorType: 'request', request: { method, url, status } });
    const reference = request('GET', 'https://api.example.com/users/123?include=orders', 500);
    expect(reference).toMatch(/^request:[0-9a-f]{16}$/);
    expect(request('GET', 'https://api.example.com/users/456', 500)).toBe(reference);
    expect(request('get', 'https://api.example.com/users/789#frag', 500)).toBe(reference);
    expect(request('POST', 'https://api.example.com/users/123', 500)).not.toBe(reference);
    expect(request('GET', 'https://api.example.com/users/123', 502)).not.toBe(reference);
    expect(request('GET', 'https://api.example.com/orders/123', 500)).not.toBe(reference);
    expect(request('GET', 'https://api.example.com/users/123')).not.toBe(reference);
  });

  // Regression: a V8 header line holding an "@" was once parsed as a Firefox frame, raw numbers and all.
  it('ignores numbers in the message even when it contains an @ (V8 header line is not a frame)', () => {
    const fingerprint = (n: number) =>
      computeFingerprint({
        errorType: 'Error',
        message: `Request ${n} failed @ stage 2`,
        stack: `Error: Request ${n} failed @ stage 2\n    at send (https://x.test/app.js:1:2)`,
      });
    expect(fingerprint(456)).toBe(fingerprint(123));
  });

  it('does not count the V8 header line as a top frame when the message contains an @', () => {
    expect(topFrames('Error: invalid address bob@example.com\n    at check (a.js:1:1)')).toEqual(['check@a.js']);
  });

  // Regression: a hex id made only of digits once normalised differently from one with letters.
  it('gives the same fingerprint for hex ids that happen to be all digits', () => {
    const fingerprint = (id: string) =>
      computeFingerprint({ errorType: 'ChunkLoadError', message: `Loading chunk ${id} failed` });
    expect(fingerprint('12345678')).toBe(fingerprint('3f9a2c1b'));
  });

  it('finds ids glued to a prefix with _ or -', () => {
    const fingerprint = (id: string) => computeFingerprint({ errorType: 'Error', message: `no row for user_${id}` });
    expect(fingerprint('3f9a2c1b')).toBe(fingerprint('77aa01ff'));
  });

  it('reads stacks with Windows line endings', () => {
    expect(topFrames('Error: x\r\n    at a (a.js:1:1)\r\n    at b (b.js:2:2)\r\n')).toEqual(['a@a.js', 'b@b.js']);
  });

  it('keeps API versions in URLs apart but folds ids in file names', () => {
    expect(normalizeUrl('https://api.example/api/v1/users/42')).toBe('https://api.example/api/v1/users/<id>');
    expect(normalizeUrl('https://api.example/files/123.json')).toBe('https://api.example/files/<id>.json');
  });

  it('treats mixed-case bundle hashes (Vite, Rollup) as hashes', () => {
    expect(topFrames('    at main (https://x.test/assets/index-D8s7xX3k.js:1:2)')).toEqual(['main@index.<hash>.js']);
    expect(topFrames('    at main (https://x.test/assets/index-component.js:1:2)')).toEqual([
      'main@index-component.js',
    ]);
  });
});

describe('grouping version 2: short prefixed ids', () => {
  it('normalises ch_1002, ord_42, u-17 and long prefixed ids in URLs, as version 1 did not', () => {
    const urls = ['/v2/charges/ch_1002', '/v2/charges/ch_1090', '/v2/charges/ch_3MtwBwLkdIwHu7ix28a3tqPa'];
    expect(new Set(urls.map((url) => normalizeUrl(url)))).toEqual(new Set(['/v2/charges/<id>']));
    expect(normalizeUrl('/orders/ord_42/users/u-17')).toBe('/orders/<id>/users/<id>');
    expect(normalizeUrl('/v2/charges/ch_1002', 1)).toBe('/v2/charges/ch_1002');
    // Versions and names with a digit but no id shape stay: /v2/, /api-v2/ (too short after the separator).
    expect(normalizeUrl('/api-v2/v1/items')).toBe('/api-v2/v1/items');
  });

  it('normalises them in messages too', () => {
    expect(normalizeMessage('charge ch_3MtwBwLkdIwHu7ix28a3tqPa declined')).toBe('charge <id> declined');
    expect(normalizeMessage('charge ch_3MtwBwLkdIwHu7ix28a3tqPa declined', 1)).not.toBe('charge <id> declined');
    expect(normalizeMessage('order ord_42 failed')).toBe(normalizeMessage('order ord_77 failed'));
  });

  it('groups 90 failed requests to 90 charge ids as one, where version 1 made 90', () => {
    const fingerprints = (version: 1 | 2) =>
      new Set(
        Array.from({ length: 90 }, (_, i) =>
          computeFingerprint(
            {
              errorType: 'request',
              request: { method: 'POST', url: `https://api.example/v2/charges/ch_${1001 + i}`, status: 402 },
            },
            version,
          ),
        ),
      );
    expect(fingerprints(2).size).toBe(1);
    expect(fingerprints(1).size).toBe(90);
  });
});
