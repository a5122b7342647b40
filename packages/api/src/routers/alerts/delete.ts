import { deleteAlert } from '@collector/db';
import { fail } from '../../errors';
import { authedProcedure } from '../../trpc';
import { assertOwnApp } from '../own-apps';
import { deleteAlertMeta, ZDeleteAlertRequestSchema, ZDeleteAlertResponseSchema } from './delete.types';

export const deleteAlertRoute = authedProcedure
  .meta(deleteAlertMeta)
  .input(ZDeleteAlertRequestSchema)
  .output(ZDeleteAlertResponseSchema)
  .mutation(async ({ ctx, input }) => {
    await assertOwnApp(ctx.db, input.appKey, ctx.session.user.id);
    if (!(await deleteAlert(ctx.db, input.appKey, input.id))) fail('NOT_FOUND');
  });
