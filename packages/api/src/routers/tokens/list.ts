import { listApiTokens } from '@collector/db';
import { authorizedOrgs } from '../../auth/authorize';
import { authedProcedure } from '../../trpc';
import { listTokensMeta, ZListTokensRequestSchema, ZListTokensResponseSchema } from './list.types';
import { toApiToken } from './shapes';

export const listTokensRoute = authedProcedure
  .meta(listTokensMeta)
  .input(ZListTokensRequestSchema)
  .output(ZListTokensResponseSchema)
  .query(async ({ ctx }) => {
    const orgIds = (await authorizedOrgs(ctx, 'tokens.read')).map((org) => org.id);
    const userId = ctx.principal.kind === 'org_token' ? null : ctx.principal.user.id;
    return { tokens: (await listApiTokens(ctx.db, { userId, orgIds })).map(toApiToken) };
  });
