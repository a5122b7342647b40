import { addMember, findMembershipRole, insertAudit, takeInvitation } from '@collector/db';
import type { OrgRole } from '@collector/domain';
import { requireUser } from '../../auth/authorize';
import { fail } from '../../errors';
import { sha256Hex } from '../../ids';
import { authedProcedure } from '../../trpc';
import { acceptInvitationMeta, ZAcceptInvitationRequestSchema, ZAcceptInvitationResponseSchema } from './accept.types';

export const acceptInvitationRoute = authedProcedure
  .meta(acceptInvitationMeta)
  .input(ZAcceptInvitationRequestSchema)
  .output(ZAcceptInvitationResponseSchema)
  .mutation(async ({ ctx, input }) => {
    const user = requireUser(ctx.principal, 'write');
    const now = ctx.clock();
    // Left in place when refused, so that the person it was meant for can still use it.
    const invitation = await takeInvitation(ctx.db, sha256Hex(input.token), now, (row) => row.email === user.email);
    if (!invitation) fail('NOT_FOUND');
    if (invitation === 'refused') {
      fail('FORBIDDEN', { details: [{ path: 'token', message: 'this invitation is for another e-mail' }] });
    }
    await addMember(ctx.db, { orgId: invitation.org_id, userId: user.id, role: invitation.role as OrgRole, now });
    const target = `${user.email} as ${invitation.role}`;
    await insertAudit(ctx.db, { orgId: invitation.org_id, action: 'member.join', actor: user.email, target, at: now });
    const role = (await findMembershipRole(ctx.db, invitation.org_id, user.id)) ?? (invitation.role as OrgRole);
    return {
      org: { slug: invitation.org_slug, name: invitation.org_name, role, createdAt: invitation.org_created_at },
    };
  });
