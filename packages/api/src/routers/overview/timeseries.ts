import { hourlyTotals } from '@collector/db';
import { bucketSizes, floorTo, foldBuckets } from '@collector/domain';
import { fail } from '../../errors';
import { authedProcedure } from '../../trpc';
import { appsScope } from '../apps-scope';
import { MAX_BUCKETS, timeseriesMeta, ZTimeseriesRequestSchema, ZTimeseriesResponseSchema } from './timeseries.types';

const DEFAULT_SPAN = { hour: 24, day: 30 } as const;

export const timeseriesRoute = authedProcedure
  .meta(timeseriesMeta)
  .input(ZTimeseriesRequestSchema)
  .output(ZTimeseriesResponseSchema)
  .query(async ({ ctx, input }) => {
    const step = bucketSizes[input.bucket];
    const to = input.to ?? floorTo(ctx.clock(), input.bucket) + step;
    const from = floorTo(input.from ?? to - DEFAULT_SPAN[input.bucket] * step, input.bucket);
    if ((to - from) / step > MAX_BUCKETS) {
      const message = `spans more than ${MAX_BUCKETS} ${input.bucket} buckets`;
      fail('VALIDATION_FAILED', { details: [{ path: 'from', message }] });
    }
    const { orgId } = await appsScope(ctx, input);
    const hours = await hourlyTotals(ctx.db, { orgId, appKey: input.appKey, fromHour: from, to });
    return { bucket: input.bucket, buckets: foldBuckets(hours, input.bucket, from, to) };
  });
