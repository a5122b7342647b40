// Which failed reads are asked again by themselves: a 503 (UNAVAILABLE: the collector's database away, or the
// collector at its limit of bodies in flight) passes in seconds, and says after how many in Retry-After.
import { isCollectorError } from '@collector/client';

/** How many times one read is asked again before its error is shown. */
export const UNAVAILABLE_RETRIES = 3;
/** For a 503 without Retry-After (a proxy's own), and the longest wait taken from one. */
const DEFAULT_WAIT_SECONDS = 2;
const LONGEST_WAIT_SECONDS = 30;

/** Milliseconds to wait before asking again, after `retries` retries of this read; undefined: show the error. */
export function retryDelayMs(error: unknown, retries: number): number | undefined {
  if (retries >= UNAVAILABLE_RETRIES || !isCollectorError(error)) return undefined;
  if (error.code !== 'UNAVAILABLE' && error.status !== 503) return undefined;
  return Math.min(error.retryAfterSeconds ?? DEFAULT_WAIT_SECONDS, LONGEST_WAIT_SECONDS) * 1000;
}
