import { z } from 'zod';
import type { Meta } from '../../trpc';

export const logoutMeta: Meta = {
  openapi: {
    method: 'POST',
    path: '/api/auth/logout',
    summary: 'End this session',
    description: 'The token is refused from then on.',
    tags: ['auth'],
  },
  contract: { status: 204, errors: ['UNAUTHENTICATED'] },
};

export const ZLogoutRequestSchema = z.void();
export const ZLogoutResponseSchema = z.void();
