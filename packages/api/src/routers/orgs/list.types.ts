import { z } from 'zod';
import { ZOrgSchema } from '../../schemas';
import type { Meta } from '../../trpc';

export const listOrgsMeta: Meta = {
  openapi: {
    method: 'GET',
    path: '/api/orgs',
    summary: 'The caller’s organizations, with their role in each',
    description:
      'Oldest membership first: the first is the one made at registration. An org token sees its own organization.',
    tags: ['organizations'],
  },
  contract: { errors: ['UNAUTHENTICATED'] },
};

export const ZListOrgsRequestSchema = z.void();
export const ZListOrgsResponseSchema = z.object({ orgs: z.array(ZOrgSchema) });
