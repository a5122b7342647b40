import { addMember, countUsers, findInvitationByHash, insertAudit, takeInvitation } from '@collector/db';
import type { OrgRole } from '@collector/domain';
import { createAccount } from '../../auth/accounts';
import { hashPassword, isCommonPassword } from '../../auth/passwords';
import { createSession } from '../../auth/sessions';
import { fail } from '../../errors';
import { sha256Hex } from '../../ids';
import { publicProcedure } from '../../trpc';
import { registerMeta, ZRegisterRequestSchema, ZRegisterResponseSchema } from './register.types';

export const registerRoute = publicProcedure
  .meta(registerMeta)
  .input(ZRegisterRequestSchema)
  .output(ZRegisterResponseSchema)
  .mutation(async ({ ctx, input }) => {
    const now = ctx.clock();
    ctx.rateLimiters.authByAddress.take(ctx.clientAddress, 1, now);
    const registration = ctx.accounts?.registration ?? 'open';
    // An invitation's token, when one was sent: under REGISTRATION=invite it is what lets the account in, and
    // under any mode it makes the new account a member at once.
    const invitation =
      input.invitation === undefined ? undefined : await findInvitationByHash(ctx.db, sha256Hex(input.invitation), now);
    if (input.invitation !== undefined && (!invitation || invitation.email !== input.email)) {
      fail('FORBIDDEN', { details: [{ path: 'invitation', message: 'is not a valid invitation for this e-mail' }] });
    }
    // closed: only the very first user; invite: the first, and holders of an invitation.
    const refused = registration === 'closed' || (registration === 'invite' && !invitation);
    if (refused && (await countUsers(ctx.db)) > 0) {
      const message =
        registration === 'invite' ? 'registration needs an invitation' : 'registration is closed on this collector';
      fail('FORBIDDEN', { details: [{ path: '', message }] });
    }
    if (isCommonPassword(input.password)) {
      fail('VALIDATION_FAILED', { details: [{ path: 'password', message: 'is one of the most common passwords' }] });
    }
    const user = await createAccount(ctx.db, {
      email: input.email,
      passwordHash: await hashPassword(input.password),
      now,
    });
    if (!user) fail('EMAIL_TAKEN');
    // Taken (it works once) only now that the account exists; one used meanwhile leaves the account without it.
    const taken = invitation && (await takeInvitation(ctx.db, invitation.hash, now, () => true));
    if (taken && taken !== 'refused') {
      await addMember(ctx.db, { orgId: taken.org_id, userId: user.id, role: taken.role as OrgRole, now });
      const target = `${user.email} as ${taken.role}`;
      await insertAudit(ctx.db, { orgId: taken.org_id, action: 'member.join', actor: user.email, target, at: now });
    }
    const token = await createSession(ctx.db, user.id, now);
    return { token, user };
  });
