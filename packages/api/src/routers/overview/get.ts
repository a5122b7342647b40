import { overviewTotals } from '@collector/db';
import { authedProcedure } from '../../trpc';
import { appsScope } from '../apps-scope';
import { overviewMeta, ZOverviewRequestSchema, ZOverviewResponseSchema } from './get.types';

export const overviewRoute = authedProcedure
  .meta(overviewMeta)
  .input(ZOverviewRequestSchema)
  .output(ZOverviewResponseSchema)
  .query(async ({ ctx, input }) => ({ totals: await overviewTotals(ctx.db, await appsScope(ctx, input)) }));
