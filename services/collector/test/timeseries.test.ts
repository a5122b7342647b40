import { describe, expect, it } from 'vitest';
import { createApp, expectValidationFailed, makeEvent, sendBatch, signUp, startTestServer } from './harness';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const server = await startTestServer();
const { token } = await signUp(server);
const { appKey } = await createApp(server, token);
const thisHour = Math.floor(Date.now() / HOUR) * HOUR;
await sendBatch(server, appKey, [
  makeEvent({ timestamp: thisHour - 2 * HOUR + 5 }),
  makeEvent({
    timestamp: thisHour - 2 * HOUR + 6,
    type: 'request',
    request: { method: 'GET', url: '/x', status: 500 },
  }),
  makeEvent({ timestamp: thisHour + 1 }),
]);

describe('overview timeseries', () => {
  it('counts per hour, every bucket present, oldest first', async () => {
    const reply = await server.call(
      'GET',
      `/api/overview/timeseries?appKey=${appKey}&bucket=hour&from=${thisHour - 3 * HOUR}&to=${thisHour + HOUR}`,
      { token },
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      bucket: 'hour',
      buckets: [
        { start: thisHour - 3 * HOUR, events: 0, errors: 0, failedRequests: 0 },
        { start: thisHour - 2 * HOUR, events: 2, errors: 1, failedRequests: 1 },
        { start: thisHour - HOUR, events: 0, errors: 0, failedRequests: 0 },
        { start: thisHour, events: 1, errors: 1, failedRequests: 0 },
      ],
    });
  });

  it('defaults to the last 24 hours by hour, and folds days', async () => {
    const hourly = await server.call('GET', '/api/overview/timeseries', { token });
    expect(hourly.body.buckets).toHaveLength(24);
    expect(hourly.body.buckets.reduce((sum: number, bucket: { events: number }) => sum + bucket.events, 0)).toBe(3);
    const daily = await server.call('GET', `/api/overview/timeseries?bucket=day`, { token });
    expect(daily.body.buckets).toHaveLength(30);
    expect(daily.body.buckets.every((bucket: { start: number }) => bucket.start % DAY === 0)).toBe(true);
    expect(daily.body.buckets.reduce((sum: number, bucket: { events: number }) => sum + bucket.events, 0)).toBe(3);
  });

  it.each([
    ['bucket=week', 'bucket'],
    ['bucket=', 'bucket'],
    [`from=${thisHour}&to=${thisHour}`, 'to'],
    [`bucket=hour&from=0&to=${thisHour}`, 'from'],
  ])('answers 400 to %s', async (query, path) => {
    const reply = await server.call('GET', `/api/overview/timeseries?${query}`, { token });
    expectValidationFailed(reply, path);
  });

  it('answers 404 for another user’s app and 401 without a token', async () => {
    const stranger = await signUp(server);
    expect(
      (await server.call('GET', `/api/overview/timeseries?appKey=${appKey}`, { token: stranger.token })).status,
    ).toBe(404);
    expect(
      (await server.call('GET', '/api/overview/timeseries', { token: stranger.token })).body.buckets.every(
        (bucket: { events: number }) => bucket.events === 0,
      ),
    ).toBe(true);
    expect((await server.call('GET', '/api/overview/timeseries')).status).toBe(401);
  });
});
