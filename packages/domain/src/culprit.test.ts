import { describe, expect, it } from 'vitest';
import { culpritOf } from './culprit';

describe('culpritOf', () => {
  it('names the innermost frame of a V8 stack as function (path)', () => {
    const stack =
      "TypeError: Cannot read properties of undefined (reading 'id')\n    at renderCart (https://shop.example/assets/app.3f9a2c1b.js:10:20)\n    at onClick (https://shop.example/assets/app.3f9a2c1b.js:42:7)";
    expect(culpritOf({ stack })).toBe('renderCart (/assets/app.3f9a2c1b.js)');
  });

  it('skips frames that are not the app’s own: dependencies, runtime, extensions, vendor bundles', () => {
    const stack = [
      'Error: boom',
      '    at Object.parse (native)',
      '    at get (/srv/app/node_modules/lodash/get.js:12:3)',
      '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
      '    at inject (chrome-extension://abcdef/content.js:1:2)',
      '    at commitRoot (https://shop.example/assets/vendor-D8s7xX3k.js:1:99)',
      '    at async loadOrders (/srv/app/src/orders.ts:40:11)',
      '    at main (/srv/app/src/main.ts:3:1)',
    ].join('\n');
    expect(culpritOf({ stack })).toBe('loadOrders (/srv/app/src/orders.ts)');
  });

  it('reads Firefox and Safari frames, anonymous functions included', () => {
    expect(
      culpritOf({
        stack: 'checkout@https://shop.example/js/checkout.js?v=3:5:10\n@https://shop.example/js/main.js:1:1',
      }),
    ).toBe('checkout (/js/checkout.js)');
    expect(culpritOf({ stack: '@https://shop.example/js/main.js:1:1' })).toBe('<anonymous> (/js/main.js)');
    expect(culpritOf({ stack: 'Error: x\n    at https://shop.example/js/main.js:1:1' })).toBe(
      '<anonymous> (/js/main.js)',
    );
  });

  it('falls back to the innermost frame when no frame is in-app', () => {
    expect(
      culpritOf({
        stack: 'Error: x\n    at get (/srv/node_modules/lodash/get.js:1:1)\n    at run (node:internal/x:1:1)',
      }),
    ).toBe('get (/srv/node_modules/lodash/get.js)');
  });

  it('names a failed request by method and path, ids replaced as the issue groups them', () => {
    expect(
      culpritOf({ request: { method: 'get', url: 'https://api.shop.example/api/orders/12345/items?page=2' } }),
    ).toBe('GET /api/orders/<id>/items');
    expect(culpritOf({ request: { method: 'POST', url: '/api/pay' } })).toBe('POST /api/pay');
  });

  it('is null without a frame or a request', () => {
    expect(culpritOf({})).toBeNull();
    expect(culpritOf({ stack: 'Error: no frames here\njust text' })).toBeNull();
    expect(culpritOf({ stack: `Error\n    at ${'x'.repeat(2000)} (a.js:1:1)` })).toBeNull();
  });

  it('is bounded in length', () => {
    expect(culpritOf({ stack: `    at ${'f'.repeat(900)} (app.js:1:1)` })?.length).toBe(300);
  });
});
