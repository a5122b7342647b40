// Token buckets. Ingestion per app: in the database, leased by each process a few tokens at a time, so that any
// number of collector processes on one database hold one limit (LeasedRateLimiter). Sign-in throttling per e-mail and
// client address: in each process's memory (RateLimiter); with several processes each holds its own budget.
import { type Db, leaseTokens } from '@collector/db';
import {
  type Bucket,
  type BucketPolicy,
  isFull,
  leaseSize,
  secondsUntilAvailable,
  takeTokens,
} from '@collector/domain';
import { fail } from './errors';

const SWEEP_EVERY = 10_000;

class RateLimiter {
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

interface Lease {
  /** Tokens leased from the shared bucket and not spent yet. */
  tokens: number;
  /** The lease request in flight, which every request short of tokens waits for. */
  refreshing: Promise<void> | undefined;
  /** The shared bucket was found short: refuse from memory until then (ms), rather than ask it per request. */
  shortUntil: number;
  retryAfterSeconds: number;
}

/**
 * A per-key limit shared through the database. Requests spend from this process's lease; the lease is topped up in
 * the background when it runs low, or while the request waits when it cannot pay. Every token comes out of the one
 * bucket in the database, so all processes together never admit more than the bucket allows.
 */
export class LeasedRateLimiter {
  private readonly leases = new Map<string, Lease>();
  private readonly leaseSize: number;

  constructor(
    readonly policy: BucketPolicy,
    /** Names this limiter's buckets in the database: `<subject>:<key>`. */
    private readonly subject: string,
    private readonly db: Db,
  ) {
    this.leaseSize = leaseSize(policy);
  }

  /** Spends `cost` tokens for `key`, or throws RATE_LIMITED with the wait in seconds. */
  async take(key: string, cost: number, now: number): Promise<void> {
    let lease = this.leases.get(key);
    if (!lease) {
      lease = { tokens: 0, refreshing: undefined, shortUntil: 0, retryAfterSeconds: 1 };
      this.leases.set(key, lease);
    }
    if (lease.tokens < cost) {
      if (now < lease.shortUntil) this.refuse(Math.max(1, Math.ceil((lease.shortUntil - now) / 1000)));
      await this.refresh(key, lease, cost, now);
      if (lease.tokens < cost) this.refuse(lease.retryAfterSeconds);
    }
    lease.tokens -= cost;
    // Running low: top up before a request has to wait for it.
    if (lease.tokens < this.leaseSize / 2 && !lease.refreshing)
      void this.refresh(key, lease, 0, now).catch(() => undefined);
  }

  private bucketName(key: string) {
    return `${this.subject}:${key}`;
  }

  private refuse(retryAfterSeconds: number): never {
    fail('RATE_LIMITED', { retryAfterSeconds });
  }

  /** Leases enough for `cost` plus a lease's worth; requests arriving meanwhile share the one statement. */
  private async refresh(key: string, lease: Lease, cost: number, now: number): Promise<void> {
    while (lease.refreshing) {
      await lease.refreshing.catch(() => undefined);
      if (lease.tokens >= cost || now < lease.shortUntil) return;
    }
    const want = Math.max(cost - lease.tokens, 0) + this.leaseSize;
    lease.refreshing = (async () => {
      const { granted } = await leaseTokens(this.db, this.bucketName(key), want, this.policy, now);
      lease.tokens += granted;
      if (lease.tokens < Math.max(cost, 1)) {
        // The bucket is empty now (it gave all it had): the wait is for what this lease still lacks. Refused from
        // memory until then to the millisecond; Retry-After rounds it up to whole seconds.
        const missing = Math.min(Math.max(cost, 1), this.policy.burst) - lease.tokens;
        lease.shortUntil = now + (missing / this.policy.ratePerSecond) * 1000;
        lease.retryAfterSeconds = secondsUntilAvailable(this.policy, cost, lease.tokens);
      } else {
        lease.shortUntil = 0;
      }
    })();
    try {
      await lease.refreshing;
    } finally {
      lease.refreshing = undefined;
    }
  }
}

export interface RateLimitConfig {
  /** Events per second per appKey; 0 turns ingestion limiting off. */
  ingestPerSecond: number;
  ingestBurst: number;
  /** Login and registration attempts per e-mail and per client address. */
  authPerEmail: BucketPolicy;
  authPerAddress: BucketPolicy;
  /** Invitations, comments, password resets and Sentry API (/api/0/) calls, per user (or e-mail) and per address. */
  actionsPerUser: BucketPolicy;
  actionsPerAddress: BucketPolicy;
}

export const defaultRateLimits: RateLimitConfig = {
  ingestPerSecond: 1000,
  ingestBurst: 5000,
  authPerEmail: { ratePerSecond: 1 / 60, burst: 10 },
  authPerAddress: { ratePerSecond: 1 / 2, burst: 30 },
  actionsPerUser: { ratePerSecond: 1, burst: 60 },
  actionsPerAddress: { ratePerSecond: 2, burst: 120 },
};

export interface RateLimiters {
  ingest: LeasedRateLimiter | null;
  authByEmail: RateLimiter;
  authByAddress: RateLimiter;
  actionsByUser: RateLimiter;
  actionsByAddress: RateLimiter;
}

/** What a rate-limited action is, so that each keeps its own budget (an invitation spree leaves comments alone). */
export type LimitedAction = 'invitation' | 'comment' | 'password-reset' | 'sentry-api';

/** Spends one of the caller's `action` budget, per user (or e-mail) and per client address; 429 when one is spent. */
export function throttle(
  limiters: RateLimiters,
  action: LimitedAction,
  caller: { user: string; address: string },
  now: number,
): void {
  limiters.actionsByAddress.take(`${action}:${caller.address}`, 1, now);
  limiters.actionsByUser.take(`${action}:${caller.user}`, 1, now);
}

export function createRateLimiters(config: RateLimitConfig, db: Db): RateLimiters {
  return {
    ingest:
      config.ingestPerSecond > 0
        ? new LeasedRateLimiter({ ratePerSecond: config.ingestPerSecond, burst: config.ingestBurst }, 'app', db)
        : null,
    authByEmail: new RateLimiter(config.authPerEmail),
    authByAddress: new RateLimiter(config.authPerAddress),
    actionsByUser: new RateLimiter(config.actionsPerUser),
    actionsByAddress: new RateLimiter(config.actionsPerAddress),
  };
}
