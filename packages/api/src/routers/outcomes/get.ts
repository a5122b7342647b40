import { outcomeTotals } from '@collector/db';
import { authedProcedure } from '../../trpc';
import { appsScope } from '../apps-scope';
import { outcomesMeta, ZOutcomesRequestSchema, ZOutcomesResponseSchema } from './get.types';

export const outcomesRoute = authedProcedure
  .meta(outcomesMeta)
  .input(ZOutcomesRequestSchema)
  .output(ZOutcomesResponseSchema)
  .query(async ({ ctx, input }) => ({ outcomes: await outcomeTotals(ctx.db, await appsScope(ctx, input)) }));
