import { listAlertDeliveries, toAlertDelivery } from '@collector/db';
import { authorizeApp } from '../../auth/authorize';
import { authedProcedure } from '../../trpc';
import { listDeliveriesMeta, ZListDeliveriesRequestSchema, ZListDeliveriesResponseSchema } from './deliveries.types';

export const listDeliveriesRoute = authedProcedure
  .meta(listDeliveriesMeta)
  .input(ZListDeliveriesRequestSchema)
  .output(ZListDeliveriesResponseSchema)
  .query(async ({ ctx, input }) => {
    await authorizeApp(ctx, input.appKey, 'alerts.read');
    return { deliveries: (await listAlertDeliveries(ctx.db, input.appKey, input.limit)).map(toAlertDelivery) };
  });
