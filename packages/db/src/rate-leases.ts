// Token buckets kept in the database (rate_buckets), so that every collector process on one database enforces one
// limit. A process leases tokens from a bucket a handful at a time and spends them from memory: one statement per
// lease, not per request.
import type { BucketPolicy } from '@collector/domain';
import { sql } from 'kysely';
import type { Db } from './schema';

/**
 * Refills the bucket for the time since its last use (at `policy.ratePerSecond`, up to `policy.burst`; a new bucket
 * starts full) and takes up to `want` tokens from it. Returns what was taken, and what was there before.
 */
export async function leaseTokens(
  db: Db,
  bucket: string,
  want: number,
  policy: BucketPolicy,
  now: number,
): Promise<{ granted: number; available: number }> {
  await sql`insert into rate_buckets (bucket, tokens, updated_at) values (${bucket}, ${policy.burst}, ${now}) on conflict (bucket) do nothing`.execute(
    db,
  );
  // The row lock of the update serialises processes leasing from one bucket at once. A clock behind the bucket's
  // (another machine's) refills nothing rather than a negative amount.
  const { rows } = await sql<{ granted: number; available: number }>`
    with refilled as (
      select bucket,
             least(${policy.burst}::float8, tokens + greatest(0, ${now}::bigint - updated_at) / 1000.0 * ${policy.ratePerSecond}::float8) as available
      from rate_buckets where bucket = ${bucket} for update
    )
    update rate_buckets
    set tokens = refilled.available - least(${want}::float8, greatest(refilled.available, 0)),
        updated_at = greatest(rate_buckets.updated_at, ${now}::bigint)
    from refilled
    where rate_buckets.bucket = refilled.bucket
    returning least(${want}::float8, greatest(refilled.available, 0)) as granted, refilled.available`.execute(db);
  const row = rows[0];
  return { granted: Number(row?.granted ?? 0), available: Number(row?.available ?? 0) };
}
