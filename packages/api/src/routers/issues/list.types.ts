import { limits } from '@collector/domain';
import { z } from 'zod';
import { queryAppKey, queryPageSize, ZIssueSchema } from '../../schemas';
import type { Meta } from '../../trpc';

export const listIssuesMeta: Meta = {
  openapi: {
    method: 'GET',
    path: '/api/issues',
    summary: 'Issues, most recently seen first',
    description: 'Pass nextCursor back as cursor for the next page; it is null on the last page.',
    tags: ['dashboard'],
  },
  contract: { errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND'] },
};

export const ZListIssuesRequestSchema = z.object({
  appKey: queryAppKey.optional(),
  limit: queryPageSize(limits.pageSizeDefault),
  cursor: z.string().min(1).max(600).optional().meta({ description: 'nextCursor of the previous page' }),
});

export const ZListIssuesResponseSchema = z.object({ issues: z.array(ZIssueSchema), nextCursor: z.string().nullable() });
