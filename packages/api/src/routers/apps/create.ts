import { firstOwnerId, freeAppSlug, insertApp, insertAudit, toApp } from '@collector/db';
import { slugify } from '@collector/domain';
import { actorName, authorizeOneOrg } from '../../auth/authorize';
import { newAppKey, newPublicKey } from '../../ids';
import { authedProcedure } from '../../trpc';
import { createAppMeta, ZCreateAppRequestSchema, ZCreateAppResponseSchema } from './create.types';

export const createAppRoute = authedProcedure
  .meta(createAppMeta)
  .input(ZCreateAppRequestSchema)
  .output(ZCreateAppResponseSchema)
  .mutation(async ({ ctx, input }) => {
    const org = await authorizeOneOrg(ctx, input.org, 'app.create');
    const now = ctx.clock();
    const slug = await freeAppSlug(ctx.db, org.orgId, slugify(input.name, 'app'));
    // Who made it: an org token acts for no one, so its apps are recorded as made by an owner of the organization.
    const userId = ctx.principal.kind === 'org_token' ? await firstOwnerId(ctx.db, org.orgId) : ctx.principal.user.id;
    const row = await insertApp(ctx.db, {
      app_key: newAppKey(input.type),
      user_id: userId as string,
      org_id: org.orgId,
      slug,
      name: input.name,
      type: input.type,
      created_at: now,
      public_key: newPublicKey(),
    });
    const actor = actorName(ctx.principal);
    await insertAudit(ctx.db, { orgId: org.orgId, action: 'app.create', actor, target: slug, at: now });
    return { app: toApp({ ...row, org_slug: org.slug }, ctx.publicUrl()) };
  });
