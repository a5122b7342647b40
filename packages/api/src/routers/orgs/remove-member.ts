import { authedProcedure } from '../../trpc';
import { changeMembership } from './member-change';
import { removeMemberMeta, ZRemoveMemberRequestSchema, ZRemoveMemberResponseSchema } from './remove-member.types';

export const removeMemberRoute = authedProcedure
  .meta(removeMemberMeta)
  .input(ZRemoveMemberRequestSchema)
  .output(ZRemoveMemberResponseSchema)
  .mutation(async ({ ctx, input }) => {
    await changeMembership(ctx, { ...input, role: null });
  });
