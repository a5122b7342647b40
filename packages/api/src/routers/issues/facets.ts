import { issueFacetValues } from '@collector/db';
import { authorizeApp, authorizedOrgs, authorizeOrg } from '../../auth/authorize';
import { authedProcedure } from '../../trpc';
import { issueFacetsMeta, ZIssueFacetsRequestSchema, ZIssueFacetsResponseSchema } from './facets.types';

export const issueFacetsRoute = authedProcedure
  .meta(issueFacetsMeta)
  .input(ZIssueFacetsRequestSchema)
  .output(ZIssueFacetsResponseSchema)
  .query(async ({ ctx, input }) => {
    // The organizations GET /api/issues reads for the same query, so the suggestions are values of the issues listed.
    const orgIds =
      input.appKey !== undefined
        ? [(await authorizeApp(ctx, input.appKey, 'app.read')).orgId]
        : input.org !== undefined
          ? [(await authorizeOrg(ctx, input.org, 'app.read')).id]
          : (await authorizedOrgs(ctx, 'app.read')).map((org) => org.id);
    return issueFacetValues(ctx.db, { orgIds, appKey: input.appKey });
  });
