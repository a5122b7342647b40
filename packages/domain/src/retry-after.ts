// Reading a Retry-After header (RFC 9110 10.2.3), as the SDK's transport and the typed client both need to.
// Zod-free and browser-safe: `@collector/domain/retry-after`.

/**
 * Seconds to wait from a Retry-After value: delta-seconds (`120`) or an HTTP date, never negative. Undefined when
 * the header is absent or unreadable. `now` (ms) is what an HTTP date is counted from.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  // An HTTP date names its month; without the check V8 would read `-5` or `1.5` as dates in 2001.
  if (!/[A-Za-z]/.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}
