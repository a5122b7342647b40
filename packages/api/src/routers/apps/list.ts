import { listApps, toApp } from '@collector/db';
import { authedProcedure } from '../../trpc';
import { listAppsMeta, ZListAppsRequestSchema, ZListAppsResponseSchema } from './list.types';

export const listAppsRoute = authedProcedure
  .meta(listAppsMeta)
  .input(ZListAppsRequestSchema)
  .output(ZListAppsResponseSchema)
  .query(async ({ ctx }) => ({
    apps: (await listApps(ctx.db, ctx.session.user.id)).map((row) => toApp(row, ctx.publicUrl())),
  }));
