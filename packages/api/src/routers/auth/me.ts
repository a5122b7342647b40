import { requireUser } from '../../auth/authorize';
import { authedProcedure } from '../../trpc';
import { meMeta, ZMeRequestSchema, ZMeResponseSchema } from './me.types';

export const meRoute = authedProcedure
  .meta(meMeta)
  .input(ZMeRequestSchema)
  .output(ZMeResponseSchema)
  .query(({ ctx }) => ({ user: requireUser(ctx.principal, 'read') }));
