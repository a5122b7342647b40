import { invalidateSession } from '../../auth/sessions';
import { fail } from '../../errors';
import { authedProcedure } from '../../trpc';
import { logoutMeta, ZLogoutRequestSchema, ZLogoutResponseSchema } from './logout.types';

export const logoutRoute = authedProcedure
  .meta(logoutMeta)
  .input(ZLogoutRequestSchema)
  .output(ZLogoutResponseSchema)
  .mutation(async ({ ctx }) => {
    // An API token is not a session: it ends with DELETE /api/tokens/{id}.
    if (ctx.principal.kind !== 'session') fail('FORBIDDEN');
    await invalidateSession(ctx.db, ctx.principal.sessionId);
  });
