import { isStorableText, UNSTORABLE_MESSAGE } from '@collector/domain';
import { z } from 'zod';
import { ZNullablePersonSchema } from '../../schemas';
import type { Meta } from '../../trpc';
import { ZIssueIdSchema } from './get.types';

export const commentMeta: Meta = {
  openapi: {
    method: 'POST',
    path: '/api/issues/{id}/comments',
    summary: 'Comment on an issue',
    description:
      'Any member of the app’s organization; the comment shows in the issue’s activity. Rate limited per user and address.',
    tags: ['dashboard'],
  },
  contract: { status: 201, errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND', 'RATE_LIMITED'] },
};

export const ZCommentRequestSchema = z.object({
  id: ZIssueIdSchema,
  text: z.string().trim().min(1).max(10_000).refine(isStorableText, UNSTORABLE_MESSAGE),
});
export const ZCommentResponseSchema = z.object({
  comment: z
    .object({ id: z.string(), text: z.string(), author: ZNullablePersonSchema, createdAt: z.int().min(0) })
    .meta({ id: 'Comment' }),
});
