import { invalidateSession } from '../../auth/sessions';
import { authedProcedure } from '../../trpc';
import { logoutMeta, ZLogoutRequestSchema, ZLogoutResponseSchema } from './logout.types';

export const logoutRoute = authedProcedure
  .meta(logoutMeta)
  .input(ZLogoutRequestSchema)
  .output(ZLogoutResponseSchema)
  .mutation(async ({ ctx }) => {
    await invalidateSession(ctx.db, ctx.session.id);
  });
