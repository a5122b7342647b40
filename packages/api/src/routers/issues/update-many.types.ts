import { bulkStatusMaxIds, isStorableText, UNSTORABLE_MESSAGE } from '@collector/domain';
import { z } from 'zod';
import { ZIssueStatusSchema } from '../../schemas';
import type { Meta } from '../../trpc';

export const updateIssuesMeta: Meta = {
  openapi: {
    method: 'PATCH',
    path: '/api/issues',
    summary: 'Resolve, ignore or reopen several issues',
    description:
      `Sets the status of up to ${bulkStatusMaxIds} issues. Ids that are not the caller’s issues (another user’s, or none) are skipped ` +
      'without saying which: updated counts the caller’s issues among ids, each now in that status (ones already in it included).',
    tags: ['dashboard'],
  },
  contract: { errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED'] },
};

export const ZUpdateIssuesRequestSchema = z.object({
  ids: z
    .array(
      z
        .string()
        .min(1)
        .max(600)
        .refine(isStorableText, UNSTORABLE_MESSAGE)
        .meta({ description: '<appKey>:<fingerprint>' }),
    )
    .min(1)
    .max(bulkStatusMaxIds),
  status: ZIssueStatusSchema,
});

export const ZUpdateIssuesResponseSchema = z.object({
  updated: z.int().min(0).meta({ description: 'The caller’s issues among ids' }),
});
