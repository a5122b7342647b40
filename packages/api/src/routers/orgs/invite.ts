import { insertAudit, insertInvitation } from '@collector/db';
import { actorName, authorizeOrg, principalKey } from '../../auth/authorize';
import { dashboardLink } from '../../auth/links';
import { newInvitationId, newLinkToken, sha256Hex } from '../../ids';
import { throttle } from '../../rate-limiter';
import { authedProcedure } from '../../trpc';
import { inviteMeta, ZInviteRequestSchema, ZInviteResponseSchema } from './invite.types';

const INVITATION_MS = 7 * 24 * 60 * 60 * 1000;

export const inviteRoute = authedProcedure
  .meta(inviteMeta)
  .input(ZInviteRequestSchema)
  .output(ZInviteResponseSchema)
  .mutation(async ({ ctx, input }) => {
    const org = await authorizeOrg(ctx, input.slug, input.role === 'owner' ? 'owners.manage' : 'members.manage');
    const now = ctx.clock();
    throttle(ctx.rateLimiters, 'invitation', { user: principalKey(ctx.principal), address: ctx.clientAddress }, now);
    const token = newLinkToken();
    const invitation = { id: newInvitationId(), email: input.email, role: input.role, expiresAt: now + INVITATION_MS };
    await insertInvitation(ctx.db, {
      id: invitation.id,
      hash: sha256Hex(token),
      org_id: org.id,
      email: input.email,
      role: input.role,
      created_by: ctx.principal.user?.id ?? null,
      created_at: now,
      expires_at: invitation.expiresAt,
    });
    const url = dashboardLink(ctx.publicUrl(), `/invitations/${token}`);
    const actor = actorName(ctx.principal);
    const target = `${input.email} as ${input.role}`;
    await insertAudit(ctx.db, { orgId: org.id, action: 'invitation.create', actor, target, at: now });
    const sendMail = ctx.accounts?.sendMail;
    if (sendMail) {
      await sendMail({
        to: input.email,
        subject: `You are invited to ${org.name} on the collector`,
        text: `${actor} invites you to join ${org.name} as ${input.role}.\n\nAccept within 7 days: ${url}\n`,
      });
    }
    return { invitation: { ...invitation, url } };
  });
