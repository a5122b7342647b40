import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './retry-after';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('reads delta-seconds and HTTP dates', () => {
    expect(parseRetryAfter('12', now)).toBe(12);
    expect(parseRetryAfter(' 3 ', now)).toBe(3);
    expect(parseRetryAfter('999999', now)).toBe(999999);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30);
    // Part of a second is a whole second: retrying early is what the header is there to stop.
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now + 500)).toBe(30);
  });

  it('never answers a negative wait', () => {
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
  });

  it('is undefined when the header is absent or unreadable', () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter('1.5', now)).toBeUndefined();
  });
});
