import { z } from 'zod';
import { ZOrgSchema } from '../../schemas';
import type { Meta } from '../../trpc';

export const listOrgsMeta: Meta = {
  openapi: {
    method: 'GET',
    path: '/api/orgs',
    summary: 'The caller’s organizations, with their role in each',
    description:
      'The caller’s own organization first (the one made at registration, which the overview covers without org), then ' +
      'the others, oldest membership first. An org token sees its own organization.',
    tags: ['organizations'],
  },
  contract: { errors: ['UNAUTHENTICATED'] },
};

export const ZListOrgsRequestSchema = z.void();
export const ZListOrgsResponseSchema = z.object({ orgs: z.array(ZOrgSchema) });
