import { z } from 'zod';
import { ZOrgSchema } from '../../schemas';
import type { Meta } from '../../trpc';

export const acceptInvitationMeta: Meta = {
  openapi: {
    method: 'POST',
    path: '/api/invitations/accept',
    summary: 'Accept an invitation',
    description:
      'The caller becomes a member of the invitation’s organization with its role (one already a member keeps their role). ' +
      'The account’s e-mail must be the invitation’s (403 otherwise); a used, expired, revoked or unknown token is 404.',
    tags: ['organizations'],
  },
  contract: { errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND'] },
};

export const ZAcceptInvitationRequestSchema = z.object({
  token: z.string().min(1).max(200).meta({ description: 'The token at the end of the invitation’s url' }),
});
export const ZAcceptInvitationResponseSchema = z.object({ org: ZOrgSchema });
