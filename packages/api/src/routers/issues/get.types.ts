import { isStorableText, limits, UNSTORABLE_MESSAGE } from '@collector/domain';
import { z } from 'zod';
import { queryPageSize, ZEventSchema, ZIssueSchema } from '../../schemas';
import type { Meta } from '../../trpc';

export const getIssueMeta: Meta = {
  openapi: {
    method: 'GET',
    path: '/api/issues/{id}',
    summary: 'One issue and its latest events',
    description:
      'id is <appKey>:<fingerprint>, raw or with the colons encoded as %3A. Events come newest first, each as it was sent plus receivedAt: ' +
      'those still stored (RETENTION_DAYS, MAX_EVENTS_PER_ISSUE), while eventCount and userCount count every event accepted.',
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

export const ZGetIssueRequestSchema = z.object({
  id: z.string().min(1).max(600).transform(decodePathParameter).refine(isStorableText, UNSTORABLE_MESSAGE).meta({ description: '<appKey>:<fingerprint>' }),
  limit: queryPageSize(limits.pageSizeDefault),
});

export const ZGetIssueResponseSchema = z.object({ issue: ZIssueSchema, events: z.array(ZEventSchema) });
