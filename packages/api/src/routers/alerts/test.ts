import { findAlert, findAlertDelivery, insertAlertDelivery, toAlertDelivery } from '@collector/db';
import { fail } from '../../errors';
import { newDeliveryId } from '../../ids';
import { authedProcedure } from '../../trpc';
import { assertOwnApp } from './shapes';
import { testAlertMeta, ZTestAlertRequestSchema, ZTestAlertResponseSchema } from './test.types';

export const testAlertRoute = authedProcedure
  .meta(testAlertMeta)
  .input(ZTestAlertRequestSchema)
  .output(ZTestAlertResponseSchema)
  .mutation(async ({ ctx, input }) => {
    await assertOwnApp(ctx.db, input.appKey, ctx.session.user.id);
    if (!(await findAlert(ctx.db, input.appKey, input.id))) fail('NOT_FOUND', 'no such alert');
    // Through the outbox like any alert, so the test shows among the deliveries with its outcome.
    const id = newDeliveryId();
    await insertAlertDelivery(ctx.db, { id, alertId: input.id, appKey: input.appKey, fingerprint: null, trigger: 'test', now: ctx.clock() });
    await ctx.alerts.deliverNow(id);
    const row = await findAlertDelivery(ctx.db, id);
    if (!row) fail('NOT_FOUND', 'no such alert');
    return { delivery: toAlertDelivery(row) };
  });
