// Events over time: hourly counts folded into hour or day buckets, empty buckets included.

export const bucketSizes = { hour: 60 * 60 * 1000, day: 24 * 60 * 60 * 1000 } as const;
export type BucketSize = keyof typeof bucketSizes;

export interface TimeBucket {
  /** Start of the bucket, ms since epoch (UTC hour or day). */
  start: number;
  events: number;
  errors: number;
  failedRequests: number;
}

export const floorTo = (time: number, size: BucketSize) => Math.floor(time / bucketSizes[size]) * bucketSizes[size];

/** Counts per UTC hour of the given events, sorted by hour (the order rows are locked in). */
export function hourlyCounts(events: ReadonlyArray<{ timestamp: number; type: string }>): TimeBucket[] {
  const byHour = new Map<number, TimeBucket>();
  for (const event of events) {
    const start = floorTo(event.timestamp, 'hour');
    let bucket = byHour.get(start);
    if (!bucket) {
      bucket = { start, events: 0, errors: 0, failedRequests: 0 };
      byHour.set(start, bucket);
    }
    bucket.events += 1;
    if (event.type === 'error') bucket.errors += 1;
    else bucket.failedRequests += 1;
  }
  return [...byHour.values()].sort((a, b) => a.start - b.start);
}

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
