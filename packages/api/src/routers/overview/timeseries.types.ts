import { bucketSizes } from '@collector/domain';
import { z } from 'zod';
import { queryAppKey, queryEpochMs, slugParameter } from '../../schemas';
import type { Meta } from '../../trpc';

export const MAX_BUCKETS = 1000;

export const timeseriesMeta: Meta = {
  openapi: {
    method: 'GET',
    path: '/api/overview/timeseries',
    summary: 'Events over time, for a chart',
    description:
      'Counts of events, errors and failedRequests per UTC hour or day, every bucket present (zeros included), oldest first. ' +
      'Buckets are whole: from is rounded down to the start of its bucket. Defaults: the last 24 hours by hour, or the last 30 days by day. ' +
      `At most ${MAX_BUCKETS} buckets. Over one app (appKey), or one organization's apps (org, else the caller's own).`,
    tags: ['dashboard'],
  },
  contract: { errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND'] },
};

export const ZTimeseriesRequestSchema = z
  .object({
    appKey: queryAppKey.optional(),
    org: slugParameter.optional(),
    bucket: z.enum(Object.keys(bucketSizes) as ['hour', 'day']).default('hour'),
    from: queryEpochMs.optional(),
    to: queryEpochMs.optional(),
  })
  .refine((query) => query.from === undefined || query.to === undefined || query.from < query.to, {
    path: ['to'],
    message: 'must be after from',
  });

export const ZTimeseriesResponseSchema = z.object({
  bucket: z.enum(['hour', 'day']),
  buckets: z.array(z.object({ start: z.int(), events: z.int(), errors: z.int(), failedRequests: z.int() })),
});
