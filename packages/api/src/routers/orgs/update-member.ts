import { listMembers } from '@collector/db';
import { fail } from '../../errors';
import { authedProcedure } from '../../trpc';
import { changeMembership } from './member-change';
import { updateMemberMeta, ZUpdateMemberRequestSchema, ZUpdateMemberResponseSchema } from './update-member.types';

export const updateMemberRoute = authedProcedure
  .meta(updateMemberMeta)
  .input(ZUpdateMemberRequestSchema)
  .output(ZUpdateMemberResponseSchema)
  .mutation(async ({ ctx, input }) => {
    const { orgId } = await changeMembership(ctx, input);
    const row = (await listMembers(ctx.db, orgId)).find((member) => member.user_id === input.userId);
    if (!row) fail('NOT_FOUND');
    return { member: { userId: row.user_id, email: row.email, role: row.role, joinedAt: row.created_at } };
  });
