import { listAlertDeliveries, toAlertDelivery } from '@collector/db';
import { authedProcedure } from '../../trpc';
import { assertOwnApp } from '../own-apps';
import { listDeliveriesMeta, ZListDeliveriesRequestSchema, ZListDeliveriesResponseSchema } from './deliveries.types';

export const listDeliveriesRoute = authedProcedure
  .meta(listDeliveriesMeta)
  .input(ZListDeliveriesRequestSchema)
  .output(ZListDeliveriesResponseSchema)
  .query(async ({ ctx, input }) => {
    await assertOwnApp(ctx.db, input.appKey, ctx.session.user.id);
    return { deliveries: (await listAlertDeliveries(ctx.db, input.appKey, input.limit)).map(toAlertDelivery) };
  });
