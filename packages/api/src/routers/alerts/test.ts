import { findAlert, findAlertDelivery, toAlertDelivery } from '@collector/db';
import { authorizeApp } from '../../auth/authorize';
import { fail } from '../../errors';
import { authedProcedure } from '../../trpc';
import { testAlertMeta, ZTestAlertRequestSchema, ZTestAlertResponseSchema } from './test.types';

export const testAlertRoute = authedProcedure
  .meta(testAlertMeta)
  .input(ZTestAlertRequestSchema)
  .output(ZTestAlertResponseSchema)
  .mutation(async ({ ctx, input }) => {
    await authorizeApp(ctx, input.appKey, 'alerts.manage');
    if (!(await findAlert(ctx.db, input.appKey, input.id))) fail('NOT_FOUND');
    // Recorded in the outbox like any alert, so the test shows among the deliveries with its outcome.
    const id = await ctx.alerts.sendTest({ alertId: input.id, appKey: input.appKey });
    const row = await findAlertDelivery(ctx.db, id);
    if (!row) fail('NOT_FOUND');
    return { delivery: toAlertDelivery(row) };
  });
