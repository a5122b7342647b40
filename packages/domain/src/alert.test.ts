import { describe, expect, it } from 'vitest';
import { alertChannelSchema, deliveryRetryWindowMs, nextAttemptAt } from './alert';

describe('nextAttemptAt', () => {
  it('retries first after firstRetryMs, then doubling, for 24 hours, with a last attempt at the end', () => {
    const createdAt = 1_000_000;
    let now = createdAt;
    const delays: number[] = [];
    for (let attempts = 1; ; attempts++) {
      const next = nextAttemptAt({ createdAt, attempts }, now, 5_000);
      if (next === null) break;
      delays.push(next - now);
      now = next;
    }
    expect(delays.slice(0, 4)).toEqual([5_000, 10_000, 20_000, 40_000]);
    expect(now).toBe(createdAt + deliveryRetryWindowMs);
    expect(delays.length).toBeLessThan(20);
  });
});

describe('alertChannelSchema', () => {
  it('takes http and https webhooks and refuses other schemes and credentials in the URL', () => {
    expect(alertChannelSchema.safeParse({ type: 'webhook', url: 'https://hooks.example.com/x' }).success).toBe(true);
    for (const url of [
      'ftp://example.com/',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'not a url',
      'https://user:pw@example.com/',
    ]) {
      expect(alertChannelSchema.safeParse({ type: 'webhook', url }).success, url).toBe(false);
    }
    expect(alertChannelSchema.safeParse({ type: 'email', to: 'ops@example.com' }).success).toBe(true);
    expect(alertChannelSchema.safeParse({ type: 'email', to: 'nope' }).success).toBe(false);
  });
});
