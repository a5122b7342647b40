import { z } from 'zod';
import { queryPageSize, ZNullablePersonSchema } from '../../schemas';
import type { Meta } from '../../trpc';
import { ZIssueIdSchema } from './get.types';

export const issueActivityMeta: Meta = {
  openapi: {
    method: 'GET',
    path: '/api/issues/{id}/activity',
    summary: 'What happened to an issue, and who did it',
    description:
      'Newest first: status changes, assignments and comments with their actor (null: an org token), then, on the last page, ' +
      'the issue’s last regression (actor null, from regressedAt) and its first_seen. Pass nextCursor back as cursor.',
    tags: ['dashboard'],
  },
  contract: { errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND'] },
};

export const issueActivityTypes = ['first_seen', 'status', 'regression', 'assignee', 'comment'] as const;

export const ZIssueActivityRequestSchema = z.object({
  id: ZIssueIdSchema,
  limit: queryPageSize(50),
  cursor: z
    .string()
    .regex(/^\d{1,18}$/, 'is not a cursor this service issued')
    .optional(),
});
export const ZIssueActivityResponseSchema = z.object({
  activity: z.array(
    z.object({
      type: z.enum(issueActivityTypes),
      actor: ZNullablePersonSchema,
      data: z.record(z.string(), z.unknown()).meta({
        description: 'status: { from, to }; assignee: { assignee }; comment: { id, text }; regression, first_seen: {}',
      }),
      at: z.int().min(0),
    }),
  ),
  nextCursor: z.string().nullable(),
});
