import { FACET_SUGGESTIONS } from '@collector/db';
import { z } from 'zod';
import { queryAppKey, slugParameter } from '../../schemas';
import type { Meta } from '../../trpc';

export const issueFacetsMeta: Meta = {
  openapi: {
    method: 'GET',
    path: '/api/issues/facets',
    summary: 'The releases and environments issues were seen with, for filter suggestions',
    description:
      'The values GET /api/issues takes as release and environment, exactly as the events sent them (the filters match them exactly), ' +
      `those that the most issues were seen with first, at most ${FACET_SUGGESTIONS} of each. Over the issues GET /api/issues would list: ` +
      'of one app (appKey), of one organization (org), else of every organization of the caller.',
    tags: ['dashboard'],
  },
  contract: { errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND'] },
};

export const ZIssueFacetsRequestSchema = z.object({
  appKey: queryAppKey.optional(),
  org: slugParameter.optional(),
});

export const ZIssueFacetsResponseSchema = z.object({
  releases: z.array(z.string()),
  environments: z.array(z.string()),
});
