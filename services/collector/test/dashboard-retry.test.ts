// The dashboard's rule for reads the collector answered 503 (services/dashboard/src/retry.ts): asked again after
// Retry-After, a few times, and nothing else is.
import { type CollectorError, createCollectorClient } from '@collector/client';
import { describe, expect, it } from 'vitest';
import { retryDelayMs, UNAVAILABLE_RETRIES } from '../../dashboard/src/retry';

/** What a call fails with when the collector answers `status` with the contract code `code`. */
async function failureFrom(status: number, code: string, headers: Record<string, string> = {}) {
  const body = {
    error: { code: -32603, message: code, data: { code, httpStatus: status, appError: { code, message: code } } },
  };
  const client = createCollectorClient({
    baseUrl: 'http://collector.test',
    fetch: async () =>
      new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } }),
  });
  return client.auth.me.query().then(
    () => {
      throw new Error('expected the call to fail');
    },
    (failure: CollectorError) => failure,
  );
}

describe('retryDelayMs', () => {
  it('waits for the Retry-After of a 503, a few times, then gives up', async () => {
    const unavailable = await failureFrom(503, 'UNAVAILABLE', { 'retry-after': '5' });
    for (let retries = 0; retries < UNAVAILABLE_RETRIES; retries++)
      expect(retryDelayMs(unavailable, retries)).toBe(5_000);
    expect(retryDelayMs(unavailable, UNAVAILABLE_RETRIES)).toBeUndefined();
    expect(UNAVAILABLE_RETRIES).toBeGreaterThan(0);
    expect(UNAVAILABLE_RETRIES).toBeLessThanOrEqual(5);
  });

  it('waits 2 s for a 503 without Retry-After, and at most 30 s whatever it says', async () => {
    expect(retryDelayMs(await failureFrom(503, 'UNAVAILABLE'), 0)).toBe(2_000);
    expect(retryDelayMs(await failureFrom(503, 'UNAVAILABLE', { 'retry-after': '3600' }), 0)).toBe(30_000);
  });

  it('shows every other failure at once', async () => {
    expect(retryDelayMs(await failureFrom(500, 'INTERNAL'), 0)).toBeUndefined();
    expect(retryDelayMs(await failureFrom(429, 'RATE_LIMITED', { 'retry-after': '1' }), 0)).toBeUndefined();
    expect(retryDelayMs(await failureFrom(401, 'UNAUTHENTICATED'), 0)).toBeUndefined();
    expect(retryDelayMs(new Error('not from the client'), 0)).toBeUndefined();
  });
});
