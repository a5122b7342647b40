import { authorizedOrgs } from '../../auth/authorize';
import { authedProcedure } from '../../trpc';
import { listOrgsMeta, ZListOrgsRequestSchema, ZListOrgsResponseSchema } from './list.types';

export const listOrgsRoute = authedProcedure
  .meta(listOrgsMeta)
  .input(ZListOrgsRequestSchema)
  .output(ZListOrgsResponseSchema)
  .query(async ({ ctx }) => ({
    orgs: (await authorizedOrgs(ctx, 'org.read')).map(({ slug, name, role, createdAt }) => ({
      slug,
      name,
      role,
      createdAt,
    })),
  }));
