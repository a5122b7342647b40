import { appNameSchema } from '@collector/domain';
import { z } from 'zod';
import { slugParameter, ZOrgSchema } from '../../schemas';
import type { Meta } from '../../trpc';

export const createOrgMeta: Meta = {
  openapi: {
    method: 'POST',
    path: '/api/orgs',
    summary: 'Create an organization',
    description:
      'The caller becomes its owner. Without slug, one is made from the name (with -2, -3... when taken); a slug given that is ' +
      'taken is 409 CONFLICT.',
    tags: ['organizations'],
  },
  contract: { status: 201, errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'CONFLICT'] },
};

export const ZCreateOrgRequestSchema = z.object({
  name: appNameSchema.meta({ description: '1 to 100 characters after surrounding spaces are trimmed' }),
  slug: slugParameter.optional(),
});
export const ZCreateOrgResponseSchema = z.object({ org: ZOrgSchema });
