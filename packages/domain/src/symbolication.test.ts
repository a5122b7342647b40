import { describe, expect, it } from 'vitest';
import type { StackFrame, StoredEvent } from './event';
import { presentEvent } from './stored-event';
import { afterMapping, applyPositions, artifactUrlsFor, isMappable, sourceMapUrlFor } from './symbolication';

describe("where a frame's map is looked up", () => {
  it('takes the URL as sent and ~/ with its path, with and without the query string', () => {
    expect(artifactUrlsFor('http://shop.example/static/app.min.js?v=3')).toEqual([
      'http://shop.example/static/app.min.js?v=3',
      '~/static/app.min.js?v=3',
      'http://shop.example/static/app.min.js',
      '~/static/app.min.js',
    ]);
    expect(artifactUrlsFor('/static/app.js')).toEqual(['/static/app.js', '~/static/app.js']);
  });

  it("resolves the sourcemap header against the file's URL, else adds .map", () => {
    expect(sourceMapUrlFor('~/static/app.min.js', 'app.min.js.map')).toEqual(['~/static/app.min.js.map']);
    expect(sourceMapUrlFor('~/static/app.min.js', '../maps/app.js.map')).toEqual(['~/maps/app.js.map']);
    expect(sourceMapUrlFor('~/static/app.min.js', null)).toEqual(['~/static/app.min.js.map']);
    expect(sourceMapUrlFor('~/static/app.min.js', 'data:application/json;base64,e30=')).toEqual([]);
  });

  it('maps only frames in a bundled script, with a line and a column', () => {
    expect(isMappable({ file: 'http://x/app.js?v=1', line: 1, column: 5 })).toBe(true);
    expect(isMappable({ file: 'http://x/app.js', line: 1 })).toBe(false);
    expect(isMappable({ file: 'main.py', line: 1, column: 1 })).toBe(false);
  });
});

describe('applyPositions', () => {
  it("names a frame's function from its caller's call position, keeps the raw frame, and marks libraries", () => {
    const frames: StackFrame[] = [
      { function: 'l', file: 'http://x/app.js', line: 1, column: 50 },
      { function: 'h', file: 'http://x/app.js', line: 1, column: 20 },
      { function: 'v', file: 'http://x/vendor.js', line: 1, column: 9 },
    ];
    const mapped = applyPositions(frames, [
      { source: 'webpack://shop/./src/cart.ts', line: 9, column: 5, name: 'Error' },
      { source: '../src/cart.ts', line: 3, column: 10, name: 'applyDiscount' },
      { source: 'node_modules/lib/index.js', line: 1, column: 1, name: 'checkout' },
    ]);
    expect(mapped).toBe(3);
    expect(frames[0]).toMatchObject({ function: 'applyDiscount', file: 'src/cart.ts', line: 9, inApp: true });
    expect(frames[0]?.raw).toEqual({ function: 'l', file: 'http://x/app.js', line: 1, column: 50 });
    expect(frames[1]).toMatchObject({ function: 'checkout', file: 'src/cart.ts' });
    // The outermost frame has no caller in the stack: its minified name stays.
    expect(frames[2]).toMatchObject({ function: 'v', inApp: false });
  });
});

describe('afterMapping', () => {
  it("writes a shown event's stack again with its causes, mapped where its map was found", () => {
    const stored: StoredEvent = {
      eventId: 'evt_shown',
      appKey: 'web_0123456789abcdef',
      type: 'error',
      timestamp: 0,
      fingerprint: 'SaveError:0',
      errorType: 'SaveError',
      message: 'could not save',
      exceptions: [
        {
          type: 'IOError',
          value: 'disk full',
          frames: [{ function: 'w', file: 'http://x/io.js', line: 1, column: 2 }],
        },
        {
          type: 'SaveError',
          value: 'could not save',
          frames: [{ function: 's', file: 'http://x/app.js', line: 1, column: 9 }],
        },
      ],
    };
    // When shown, the main exception's frames are lifted to `frames`: the same list, mapped in place.
    const shown = presentEvent(stored);
    const main = shown.frames as StackFrame[];
    expect(applyPositions(main, [{ source: 'src/save.ts', line: 4, column: 1, name: 'save' }])).toBe(1);
    afterMapping(shown, { regroup: false });
    expect(shown.stack).toBe(
      'SaveError: could not save\n    at s (src/save.ts:4:1)\nCaused by: IOError: disk full\n    at w (http://x/io.js:1:2)',
    );
  });
});
