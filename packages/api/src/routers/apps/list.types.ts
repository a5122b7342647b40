import { z } from 'zod';
import { slugParameter, ZAppSchema } from '../../schemas';
import type { Meta } from '../../trpc';

export const listAppsMeta: Meta = {
  openapi: {
    method: 'GET',
    path: '/api/apps',
    summary: 'The apps of the caller’s organizations, oldest first',
    description: 'Every organization the caller belongs to, or the one org names.',
    tags: ['apps'],
  },
  contract: { errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND'] },
};

export const ZListAppsRequestSchema = z.object({ org: slugParameter.optional() }).optional();
export const ZListAppsResponseSchema = z.object({ apps: z.array(ZAppSchema) });
