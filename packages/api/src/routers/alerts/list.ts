import { listAlerts, toAlert } from '@collector/db';
import { authedProcedure } from '../../trpc';
import { assertOwnApp } from '../own-apps';
import { listAlertsMeta, ZListAlertsRequestSchema, ZListAlertsResponseSchema } from './list.types';

export const listAlertsRoute = authedProcedure
  .meta(listAlertsMeta)
  .input(ZListAlertsRequestSchema)
  .output(ZListAlertsResponseSchema)
  .query(async ({ ctx, input }) => {
    await assertOwnApp(ctx.db, input.appKey, ctx.session.user.id);
    return { alerts: (await listAlerts(ctx.db, input.appKey)).map(toAlert) };
  });
