import { isAppOwnedBy, overviewTotals } from '@collector/db';
import { fail } from '../../errors';
import { authedProcedure } from '../../trpc';
import { overviewMeta, ZOverviewRequestSchema, ZOverviewResponseSchema } from './get.types';

export const overviewRoute = authedProcedure
  .meta(overviewMeta)
  .input(ZOverviewRequestSchema)
  .output(ZOverviewResponseSchema)
  .query(async ({ ctx, input }) => {
    const userId = ctx.session.user.id;
    if (input.appKey !== undefined && !(await isAppOwnedBy(ctx.db, input.appKey, userId))) fail('NOT_FOUND');
    return { totals: await overviewTotals(ctx.db, { userId, ...input }) };
  });
