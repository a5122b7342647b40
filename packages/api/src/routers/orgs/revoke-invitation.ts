import { deleteInvitation, insertAudit } from '@collector/db';
import { actorName, authorizeOrg } from '../../auth/authorize';
import { fail } from '../../errors';
import { authedProcedure } from '../../trpc';
import {
  revokeInvitationMeta,
  ZRevokeInvitationRequestSchema,
  ZRevokeInvitationResponseSchema,
} from './revoke-invitation.types';

export const revokeInvitationRoute = authedProcedure
  .meta(revokeInvitationMeta)
  .input(ZRevokeInvitationRequestSchema)
  .output(ZRevokeInvitationResponseSchema)
  .mutation(async ({ ctx, input }) => {
    const org = await authorizeOrg(ctx, input.slug, 'members.manage');
    if (!(await deleteInvitation(ctx.db, org.id, input.id))) fail('NOT_FOUND');
    const entry = { orgId: org.id, action: 'invitation.revoke', actor: actorName(ctx.principal), target: input.id };
    await insertAudit(ctx.db, { ...entry, at: ctx.clock() });
  });
