// In-memory token buckets keyed by appKey, e-mail or client address. One process, so memory is the right store.
import { type Bucket, type BucketPolicy, isFull, takeTokens } from '@collector/domain';
import { fail } from './errors';

const SWEEP_EVERY = 10_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private calls = 0;

  constructor(readonly policy: BucketPolicy) {}

  /** Spends `cost` tokens for `key` (0: only checks one is left), or throws RATE_LIMITED with the wait in seconds. */
  take(key: string, cost: number, now: number): void {
    if (++this.calls % SWEEP_EVERY === 0) this.sweep(now);
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = { tokens: this.policy.burst, updatedAt: now };
      this.buckets.set(key, bucket);
    }
    const result = takeTokens(bucket, this.policy, cost, now);
    if (!result.ok) fail('RATE_LIMITED', { retryAfterSeconds: result.retryAfterSeconds });
  }

  /** Forgets buckets that have refilled, so the map holds only recently active keys. */
  private sweep(now: number): void {
    for (const [key, bucket] of this.buckets) if (isFull(bucket, this.policy, now)) this.buckets.delete(key);
  }
}

export interface RateLimitConfig {
  /** Events per second per appKey; 0 turns ingestion limiting off. */
  ingestPerSecond: number;
  ingestBurst: number;
  /** Login and registration attempts per e-mail and per client address. */
  authPerEmail: BucketPolicy;
  authPerAddress: BucketPolicy;
}

export const defaultRateLimits: RateLimitConfig = {
  ingestPerSecond: 1000,
  ingestBurst: 5000,
  authPerEmail: { ratePerSecond: 1 / 60, burst: 10 },
  authPerAddress: { ratePerSecond: 1 / 2, burst: 30 },
};

export interface RateLimiters {
  ingest: RateLimiter | null;
  authByEmail: RateLimiter;
  authByAddress: RateLimiter;
}

export function createRateLimiters(config: RateLimitConfig): RateLimiters {
  return {
    ingest: config.ingestPerSecond > 0 ? new RateLimiter({ ratePerSecond: config.ingestPerSecond, burst: config.ingestBurst }) : null,
    authByEmail: new RateLimiter(config.authPerEmail),
    authByAddress: new RateLimiter(config.authPerAddress),
  };
}
