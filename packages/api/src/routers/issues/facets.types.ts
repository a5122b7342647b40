import { FACET_SUGGESTIONS, FACET_TAG_KEYS, FACET_TAG_VALUES } from '@collector/db';
import { z } from 'zod';
import { queryAppKey, slugParameter } from '../../schemas';
import type { Meta } from '../../trpc';

export const issueFacetsMeta: Meta = {
  openapi: {
    method: 'GET',
    path: '/api/issues/facets',
    summary: 'The releases, environments and tags issues were seen with, for filter and search suggestions',
    description:
      'The values GET /api/issues takes as release and environment, exactly as the events sent them (the filters match them exactly), ' +
      `those that the most issues were seen with first, at most ${FACET_SUGGESTIONS} of each. tags: the tag keys the search’s ` +
      '<key>:<value> terms take, with their values as sent: the keys with the most issue and value pairs first, at most ' +
      `${FACET_TAG_KEYS}, each with at most ${FACET_TAG_VALUES} values, those the most issues were seen with first. ` +
      'Over the issues GET /api/issues would list: of one app (appKey), of one organization (org), else of every ' +
      'organization of the caller.',
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
  tags: z
    .array(z.object({ key: z.string(), values: z.array(z.string()) }))
    .meta({ description: 'Tag keys, commonest first, each with its commonest values' }),
});
