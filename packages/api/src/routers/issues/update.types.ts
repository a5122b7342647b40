import { z } from 'zod';
import { ZIssueSchema, ZIssueStatusSchema } from '../../schemas';
import type { Meta } from '../../trpc';
import { ZIssueIdSchema } from './get.types';

export const updateIssueMeta: Meta = {
  openapi: {
    method: 'PATCH',
    path: '/api/issues/{id}',
    summary: 'Resolve, ignore or reopen one issue',
    description:
      'Sets the issue’s status; statusChangedAt moves only when the status changes. A resolved issue is reopened by its next event ' +
      '(regressedAt is set); an ignored one stays ignored and keeps counting its events.',
    tags: ['dashboard'],
  },
  contract: { errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND'] },
};

export const ZUpdateIssueRequestSchema = z.object({ id: ZIssueIdSchema, status: ZIssueStatusSchema });

export const ZUpdateIssueResponseSchema = z.object({ issue: ZIssueSchema });
