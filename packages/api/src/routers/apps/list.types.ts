import { z } from 'zod';
import { ZAppSchema } from '../../schemas';
import type { Meta } from '../../trpc';

export const listAppsMeta: Meta = {
  openapi: { method: 'GET', path: '/api/apps', summary: 'The caller’s apps, oldest first', tags: ['apps'] },
  contract: { errors: ['UNAUTHENTICATED'] },
};

export const ZListAppsRequestSchema = z.void();
export const ZListAppsResponseSchema = z.object({ apps: z.array(ZAppSchema) });
