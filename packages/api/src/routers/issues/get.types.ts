import { isStorableText, issueSeriesDays, limits, UNSTORABLE_MESSAGE } from '@collector/domain';
import { z } from 'zod';
import { queryPageSize, ZEventSchema, ZIssueSchema } from '../../schemas';
import type { Meta } from '../../trpc';

export const getIssueMeta: Meta = {
  openapi: {
    method: 'GET',
    path: '/api/issues/{id}',
    summary: 'One issue, its daily series, a breakdown and a page of its events',
    description:
      'id is <appKey>:<fingerprint>, raw or with the colons encoded as %3A. Events come newest first, each as it was sent plus receivedAt, ' +
      'those still stored (RETENTION_DAYS, MAX_EVENTS_PER_ISSUE), while eventCount and userCount count every event accepted; ' +
      'pass nextCursor back as cursor for older ones. issue.series counts every event ever accepted per UTC day (by event timestamp) over the ' +
      `last ${issueSeriesDays} days, today included, oldest first, every day present. breakdown counts every event accepted for the ` +
      'issue by browser, operating system, runtime, device, release and environment (most first): browser and OS from the ' +
      'event’s contexts when they name them, else from its user agent; runtime and device from contexts. ' +
      'For issues older than the counts, the events still stored then.',
    tags: ['dashboard'],
  },
  contract: { errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND'] },
};

/** The REST layer hands path parameters over as sent, still percent-encoded (%3A); the typed client sends them raw. */
function decodePathParameter(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export const ZIssueIdSchema = z
  .string()
  .min(1)
  .max(600)
  .transform(decodePathParameter)
  .refine(isStorableText, UNSTORABLE_MESSAGE)
  .meta({ description: '<appKey>:<fingerprint>' });

export const ZGetIssueRequestSchema = z.object({
  id: ZIssueIdSchema,
  limit: queryPageSize(limits.pageSizeDefault),
  cursor: z.string().min(1).max(600).meta({ description: 'nextCursor of the previous page of events' }).optional(),
});

const ZDayCountSchema = z.object({
  start: z.int().min(0).meta({ description: 'Start of the UTC day, ms' }),
  events: z.int().min(0),
});
const ZCountsSchema = z.array(
  z.object({ value: z.string().nullable().meta({ description: 'null: not sent' }), events: z.int().min(1) }),
);

const ZIssueBreakdownSchema = z
  .object({
    events: z.int().min(0).meta({ description: 'How many events were counted: every event accepted for the issue' }),
    browsers: ZCountsSchema,
    os: ZCountsSchema,
    runtimes: ZCountsSchema.meta({ description: 'From the events’ runtime context (server apps)' }),
    devices: ZCountsSchema.meta({ description: 'From the events’ device context' }),
    releases: ZCountsSchema,
    environments: ZCountsSchema,
  })
  .meta({ id: 'IssueBreakdown' });

export const ZGetIssueResponseSchema = z.object({
  issue: ZIssueSchema.extend({ series: z.array(ZDayCountSchema).length(issueSeriesDays) }),
  events: z.array(ZEventSchema),
  nextCursor: z.string().nullable(),
  breakdown: ZIssueBreakdownSchema,
});
