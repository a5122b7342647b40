import { describe, expect, it } from 'vitest';
import { boundEventData, FILTERED } from './event-data';

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
