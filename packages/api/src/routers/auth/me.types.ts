import { z } from 'zod';
import { ZUserSchema } from '../../schemas';
import type { Meta } from '../../trpc';

export const meMeta: Meta = {
  openapi: { method: 'GET', path: '/api/auth/me', summary: 'The signed-in user', tags: ['auth'] },
  contract: { errors: ['UNAUTHENTICATED'] },
};

export const ZMeRequestSchema = z.void();
export const ZMeResponseSchema = z.object({ user: ZUserSchema });
