import { deleteAlert } from '@collector/db';
import { authorizeApp } from '../../auth/authorize';
import { fail } from '../../errors';
import { authedProcedure } from '../../trpc';
import { deleteAlertMeta, ZDeleteAlertRequestSchema, ZDeleteAlertResponseSchema } from './delete.types';

export const deleteAlertRoute = authedProcedure
  .meta(deleteAlertMeta)
  .input(ZDeleteAlertRequestSchema)
  .output(ZDeleteAlertResponseSchema)
  .mutation(async ({ ctx, input }) => {
    await authorizeApp(ctx, input.appKey, 'alerts.manage');
    if (!(await deleteAlert(ctx.db, input.appKey, input.id))) fail('NOT_FOUND');
  });
