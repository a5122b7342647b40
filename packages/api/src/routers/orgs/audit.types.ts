import { z } from 'zod';
import { queryPageSize, slugParameter } from '../../schemas';
import type { Meta } from '../../trpc';

export const auditMeta: Meta = {
  openapi: {
    method: 'GET',
    path: '/api/orgs/{slug}/audit',
    summary: 'What was done in an organization, by whom',
    description:
      'Member, role, invitation, token and app changes, newest first. Owners and admins. Pass nextCursor back as cursor for older ones.',
    tags: ['organizations'],
  },
  contract: { errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND'] },
};

export const ZAuditRequestSchema = z.object({
  slug: slugParameter,
  limit: queryPageSize(50),
  cursor: z
    .string()
    .regex(/^\d{1,18}$/, 'is not a cursor this service issued')
    .optional(),
});
export const ZAuditResponseSchema = z.object({
  entries: z.array(
    z.object({
      action: z.string().meta({ description: 'e.g. member.role, invitation.create, token.create, app.create' }),
      actor: z.string().meta({ description: 'The e-mail of who did it, or the token it was done with' }),
      target: z.string(),
      at: z.int().min(0),
    }),
  ),
  nextCursor: z.string().nullable(),
});
