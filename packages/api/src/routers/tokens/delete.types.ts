import { z } from 'zod';
import type { Meta } from '../../trpc';

export const deleteTokenMeta: Meta = {
  openapi: {
    method: 'DELETE',
    path: '/api/tokens/{id}',
    summary: 'Revoke an API token',
    description:
      'Refused from then on (401). A user token by its user; an org token by any owner or admin of its organization.',
    tags: ['tokens'],
  },
  contract: { status: 204, errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND'] },
};

export const ZDeleteTokenRequestSchema = z.object({
  id: z.string().regex(/^tok_[a-z0-9]{1,64}$/, 'must be a token id'),
});
export const ZDeleteTokenResponseSchema = z.void();
