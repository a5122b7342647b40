import { listAlerts, toAlert } from '@collector/db';
import { authorizeApp } from '../../auth/authorize';
import { authedProcedure } from '../../trpc';
import { listAlertsMeta, ZListAlertsRequestSchema, ZListAlertsResponseSchema } from './list.types';

export const listAlertsRoute = authedProcedure
  .meta(listAlertsMeta)
  .input(ZListAlertsRequestSchema)
  .output(ZListAlertsResponseSchema)
  .query(async ({ ctx, input }) => {
    await authorizeApp(ctx, input.appKey, 'alerts.read');
    return { alerts: (await listAlerts(ctx.db, input.appKey)).map(toAlert) };
  });
