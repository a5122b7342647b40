import { listApps, toApp } from '@collector/db';
import { authorizedOrgs, authorizeOrg } from '../../auth/authorize';
import { authedProcedure } from '../../trpc';
import { listAppsMeta, ZListAppsRequestSchema, ZListAppsResponseSchema } from './list.types';

export const listAppsRoute = authedProcedure
  .meta(listAppsMeta)
  .input(ZListAppsRequestSchema)
  .output(ZListAppsResponseSchema)
  .query(async ({ ctx, input }) => {
    const orgIds =
      input?.org !== undefined
        ? [(await authorizeOrg(ctx, input.org, 'app.read')).id]
        : (await authorizedOrgs(ctx, 'app.read')).map((org) => org.id);
    return { apps: (await listApps(ctx.db, orgIds)).map((row) => toApp(row, ctx.publicUrl())) };
  });
