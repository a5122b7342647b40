// Token-bucket arithmetic, kept pure so it can be tested with a fake clock.

export interface BucketPolicy {
  /** Tokens added per second. */
  ratePerSecond: number;
  /** Bucket size: the most that can be spent at once. */
  burst: number;
}

export interface Bucket {
  tokens: number;
  updatedAt: number;
}

export type TakeResult = { ok: true } | { ok: false; retryAfterSeconds: number };

function refill(bucket: Bucket, policy: BucketPolicy, now: number): void {
  const elapsedSeconds = Math.max(0, now - bucket.updatedAt) / 1000;
  bucket.tokens = Math.min(policy.burst, bucket.tokens + elapsedSeconds * policy.ratePerSecond);
  bucket.updatedAt = now;
}

/** Spends `cost` tokens if the bucket holds them (a cost of 0 only checks that one is left); mutates the bucket. */
export function takeTokens(bucket: Bucket, policy: BucketPolicy, cost: number, now: number): TakeResult {
  refill(bucket, policy, now);
  if (cost === 0 && bucket.tokens >= 1) return { ok: true };
  if (cost > 0 && cost <= bucket.tokens) {
    bucket.tokens -= cost;
    return { ok: true };
  }
  // A cost above the burst can never fit: answer with the wait for a full bucket.
  const missing = Math.min(Math.max(cost, 1), policy.burst) - bucket.tokens;
  return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(missing / policy.ratePerSecond)) };
}

/** True once the bucket has refilled completely and can be forgotten. */
export function isFull(bucket: Bucket, policy: BucketPolicy, now: number): boolean {
  return bucket.tokens + (Math.max(0, now - bucket.updatedAt) / 1000) * policy.ratePerSecond >= policy.burst;
}

/**
 * How many tokens a process leases at a time from a bucket shared with other processes (in the database): a tenth
 * of a second's worth, within [1, burst / 4]. Leased tokens are spent by that process only, so what other processes
 * cannot use at a given moment is at most about a lease and a half per process; larger leases mean fewer statements.
 */
export function leaseSize(policy: BucketPolicy): number {
  return Math.max(1, Math.min(Math.ceil(policy.ratePerSecond / 10), Math.floor(policy.burst / 4)));
}

/** Seconds until `held` tokens, refilling at the policy's rate, reach `cost` (at least 1, as Retry-After wants). */
export function secondsUntilAvailable(policy: BucketPolicy, cost: number, held: number): number {
  const missing = Math.min(Math.max(cost, 1), policy.burst) - held;
  return Math.max(1, Math.ceil(missing / policy.ratePerSecond));
}
