import { z } from 'zod';
import { slugParameter } from '../../schemas';
import type { Meta } from '../../trpc';

export const revokeInvitationMeta: Meta = {
  openapi: {
    method: 'DELETE',
    path: '/api/orgs/{slug}/invitations/{id}',
    summary: 'Revoke a pending invitation',
    description: 'Its link is refused from then on (404 at accept). Owners and admins.',
    tags: ['organizations'],
  },
  contract: { status: 204, errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND'] },
};

export const ZRevokeInvitationRequestSchema = z.object({
  slug: slugParameter,
  id: z.string().regex(/^inv_[a-z0-9]{1,64}$/, 'must be an invitation id'),
});
export const ZRevokeInvitationResponseSchema = z.void();
