import { deleteApiToken, findApiToken, insertAudit } from '@collector/db';
import { actorName, authorizeOrg, requireUser } from '../../auth/authorize';
import { fail } from '../../errors';
import { authedProcedure } from '../../trpc';
import { deleteTokenMeta, ZDeleteTokenRequestSchema, ZDeleteTokenResponseSchema } from './delete.types';

export const deleteTokenRoute = authedProcedure
  .meta(deleteTokenMeta)
  .input(ZDeleteTokenRequestSchema)
  .output(ZDeleteTokenResponseSchema)
  .mutation(async ({ ctx, input }) => {
    const token = await findApiToken(ctx.db, input.id);
    if (!token) fail('NOT_FOUND');
    if (token.org_slug !== null) {
      const org = await authorizeOrg(ctx, token.org_slug, 'tokens.manage');
      const entry = { orgId: org.id, action: 'token.revoke', actor: actorName(ctx.principal), target: token.name };
      await deleteApiToken(ctx.db, token.id);
      await insertAudit(ctx.db, { ...entry, at: ctx.clock() });
      return;
    }
    // Another user's token is answered like one that does not exist.
    if (ctx.principal.kind === 'org_token' || token.user_id !== ctx.principal.user.id) fail('NOT_FOUND');
    requireUser(ctx.principal, 'write');
    await deleteApiToken(ctx.db, token.id);
  });
