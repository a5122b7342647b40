// Events over time: hourly counts folded into hour or day buckets, empty buckets included.

/** One hour in ms: the unit of every hourly counter (app_hourly.hour_start, active hours as ms / HOUR). */
export const HOUR = 60 * 60 * 1000;
/** One UTC day in ms: the unit of the events table's partitions and of event_ids.day. */
export const DAY = 24 * HOUR;

export const bucketSizes = { hour: HOUR, day: DAY } as const;
export type BucketSize = keyof typeof bucketSizes;

export interface TimeBucket {
  /** Start of the bucket, ms since epoch (UTC hour or day). */
  start: number;
  events: number;
  errors: number;
  failedRequests: number;
}

export const floorTo = (time: number, size: BucketSize) => Math.floor(time / bucketSizes[size]) * bucketSizes[size];

/** Every bucket from the one holding `from` up to `to` (exclusive), each the sum of the hours inside it. */
export function foldBuckets(hours: readonly TimeBucket[], size: BucketSize, from: number, to: number): TimeBucket[] {
  const first = floorTo(from, size);
  const step = bucketSizes[size];
  const buckets: TimeBucket[] = [];
  for (let start = first; start < to; start += step) buckets.push({ start, events: 0, errors: 0, failedRequests: 0 });
  for (const hour of hours) {
    const bucket = buckets[Math.floor((hour.start - first) / step)];
    if (!bucket) continue;
    bucket.events += hour.events;
    bucket.errors += hour.errors;
    bucket.failedRequests += hour.failedRequests;
  }
  return buckets;
}
