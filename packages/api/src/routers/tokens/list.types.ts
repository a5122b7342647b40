import { z } from 'zod';
import type { Meta } from '../../trpc';
import { ZApiTokenSchema } from './shapes';

export const listTokensMeta: Meta = {
  openapi: {
    method: 'GET',
    path: '/api/tokens',
    summary: 'The caller’s tokens, and the tokens of organizations they manage',
    description:
      'The caller’s user tokens, and the org tokens of every organization where they are owner or admin; newest first, no value.',
    tags: ['tokens'],
  },
  contract: { errors: ['UNAUTHENTICATED'] },
};

export const ZListTokensRequestSchema = z.void();
export const ZListTokensResponseSchema = z.object({ tokens: z.array(ZApiTokenSchema) });
