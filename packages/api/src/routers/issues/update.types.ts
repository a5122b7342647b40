import { z } from 'zod';
import { ZIssueSchema, ZIssueStatusSchema } from '../../schemas';
import type { Meta } from '../../trpc';
import { ZIssueIdSchema } from './get.types';

export const updateIssueMeta: Meta = {
  openapi: {
    method: 'PATCH',
    path: '/api/issues/{id}',
    summary: 'Resolve, ignore or reopen one issue, or assign it',
    description:
      'Sets the issue’s status; statusChangedAt moves only when the status changes. A resolved issue is reopened by its next event ' +
      '(regressedAt is set); an ignored one stays ignored and keeps counting its events. assignee: a member of the app’s organization ' +
      '(else 400), or null to unassign. Both changes go into the issue’s activity with who made them.',
    tags: ['dashboard'],
  },
  contract: { errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND'] },
};

export const ZUpdateIssueRequestSchema = z
  .object({
    id: ZIssueIdSchema,
    status: ZIssueStatusSchema.optional(),
    assignee: z
      .string()
      .regex(/^user_[a-z0-9]{1,64}$/, 'must be a user id')
      .nullable()
      .meta({ description: 'A member’s user id, or null to unassign' })
      .optional(),
  })
  .refine((body) => body.status !== undefined || body.assignee !== undefined, {
    path: ['status'],
    message: 'send status, assignee or both',
  });

export const ZUpdateIssueResponseSchema = z.object({ issue: ZIssueSchema });
