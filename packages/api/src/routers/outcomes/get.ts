import { isAppOwnedBy, outcomeTotals } from '@collector/db';
import { fail } from '../../errors';
import { authedProcedure } from '../../trpc';
import { outcomesMeta, ZOutcomesRequestSchema, ZOutcomesResponseSchema } from './get.types';

export const outcomesRoute = authedProcedure
  .meta(outcomesMeta)
  .input(ZOutcomesRequestSchema)
  .output(ZOutcomesResponseSchema)
  .query(async ({ ctx, input }) => {
    const userId = ctx.session.user.id;
    if (input.appKey !== undefined && !(await isAppOwnedBy(ctx.db, input.appKey, userId))) fail('NOT_FOUND');
    return { outcomes: await outcomeTotals(ctx.db, { userId, ...input }) };
  });
