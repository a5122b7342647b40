import { describe, expect, it } from 'vitest';
import { type Bucket, isFull, leaseSize, secondsUntilAvailable, takeTokens } from './rate-limit';

const policy = { ratePerSecond: 10, burst: 5 };
const fullBucket = (now = 0): Bucket => ({ tokens: policy.burst, updatedAt: now });

describe('takeTokens', () => {
  it('allows a burst, then refuses with a whole number of seconds >= 1', () => {
    const bucket = fullBucket();
    for (let i = 0; i < 5; i++) expect(takeTokens(bucket, policy, 1, 0)).toEqual({ ok: true });
    expect(bucket.tokens).toBe(0);
    const refused = takeTokens(bucket, policy, 1, 0);
    expect(refused).toEqual({ ok: false, retryAfterSeconds: 1 });
  });

  it('spends a multi-token cost at once', () => {
    const bucket = fullBucket();
    expect(takeTokens(bucket, policy, 5, 0)).toEqual({ ok: true });
    expect(takeTokens(bucket, policy, 1, 0).ok).toBe(false);
  });

  it('leaves the bucket as it was when refusing', () => {
    const bucket: Bucket = { tokens: 2, updatedAt: 0 };
    expect(takeTokens(bucket, policy, 3, 0).ok).toBe(false);
    expect(bucket.tokens).toBe(2);
    expect(takeTokens(bucket, policy, 2, 0)).toEqual({ ok: true });
  });

  it('refills over time with the injected clock', () => {
    const bucket = fullBucket(1_000);
    expect(takeTokens(bucket, policy, 5, 1_000)).toEqual({ ok: true });
    expect(takeTokens(bucket, policy, 1, 1_050).ok).toBe(false); // 0.5 token after 50 ms
    expect(takeTokens(bucket, policy, 1, 1_100)).toEqual({ ok: true }); // 1 token after 100 ms
    expect(bucket.updatedAt).toBe(1_100);
    expect(takeTokens(bucket, policy, 5, 1_600)).toEqual({ ok: true }); // 5 tokens after 500 more ms
  });

  it('never refills past the burst', () => {
    const bucket: Bucket = { tokens: 0, updatedAt: 0 };
    expect(takeTokens(bucket, policy, 0, 3_600_000)).toEqual({ ok: true });
    expect(bucket.tokens).toBe(5);
    expect(takeTokens(bucket, policy, 6, 3_600_000).ok).toBe(false);
  });

  it('rounds the wait up to whole seconds', () => {
    const slow = { ratePerSecond: 0.5, burst: 10 };
    const bucket: Bucket = { tokens: 0, updatedAt: 0 };
    expect(takeTokens(bucket, slow, 1, 0)).toEqual({ ok: false, retryAfterSeconds: 2 });
    expect(takeTokens(bucket, slow, 3, 0)).toEqual({ ok: false, retryAfterSeconds: 6 });
    const partial: Bucket = { tokens: 0.25, updatedAt: 0 };
    const result = takeTokens(partial, { ratePerSecond: 1, burst: 10 }, 3, 0);
    expect(result).toEqual({ ok: false, retryAfterSeconds: 3 }); // 2.75 s, rounded up
  });

  it('answers with the wait for a full bucket when the cost is above the burst', () => {
    const bucket: Bucket = { tokens: 0, updatedAt: 0 };
    expect(takeTokens(bucket, { ratePerSecond: 1, burst: 5 }, 50, 0)).toEqual({ ok: false, retryAfterSeconds: 5 });
  });

  it('always answers an integer of at least 1', () => {
    for (const [tokens, cost, rate] of [
      [0.999, 1, 1000],
      [4, 5, 3],
      [0, 1, 7],
      [0, 100, 1000],
    ] as const) {
      const result = takeTokens({ tokens, updatedAt: 0 }, { ratePerSecond: rate, burst: 5000 }, cost, 0);
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(Number.isInteger(result.retryAfterSeconds)).toBe(true);
        expect(result.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      }
    }
  });

  it('does not refill when the clock goes backwards', () => {
    const bucket: Bucket = { tokens: 0, updatedAt: 10_000 };
    expect(takeTokens(bucket, policy, 1, 5_000).ok).toBe(false);
    expect(bucket.tokens).toBe(0);
  });
});

describe('isFull', () => {
  it('is true for a full bucket and false right after spending', () => {
    const bucket = fullBucket();
    expect(isFull(bucket, policy, 0)).toBe(true);
    takeTokens(bucket, policy, 1, 0);
    expect(isFull(bucket, policy, 0)).toBe(false);
  });

  it('becomes true once enough time has passed to refill', () => {
    const bucket: Bucket = { tokens: 0, updatedAt: 0 };
    expect(isFull(bucket, policy, 499)).toBe(false);
    expect(isFull(bucket, policy, 500)).toBe(true); // 5 tokens at 10/s
    expect(isFull(bucket, policy, 60_000)).toBe(true);
  });

  it('does not mutate the bucket', () => {
    const bucket: Bucket = { tokens: 1, updatedAt: 0 };
    isFull(bucket, policy, 10_000);
    expect(bucket).toEqual({ tokens: 1, updatedAt: 0 });
  });
});

describe('leaseSize', () => {
  it('is a tenth of a second of the rate, within one and a quarter of the burst', () => {
    expect(leaseSize({ ratePerSecond: 1000, burst: 5000 })).toBe(100);
    expect(leaseSize({ ratePerSecond: 1000, burst: 200 })).toBe(50);
    expect(leaseSize({ ratePerSecond: 1, burst: 60 })).toBe(1);
    expect(leaseSize({ ratePerSecond: 1 / 60, burst: 2 })).toBe(1);
  });
});

describe('secondsUntilAvailable', () => {
  it('is the wait for what is missing at the rate, rounded up, at least 1 s, and never beyond a full bucket', () => {
    expect(secondsUntilAvailable({ ratePerSecond: 100, burst: 100 }, 50, 0)).toBe(1);
    expect(secondsUntilAvailable({ ratePerSecond: 10, burst: 100 }, 50, 5)).toBe(5);
    expect(secondsUntilAvailable({ ratePerSecond: 1, burst: 60 }, 500, 0)).toBe(60);
  });
});
