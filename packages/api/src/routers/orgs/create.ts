import { insertAudit, insertOrg } from '@collector/db';
import { slugify } from '@collector/domain';
import { actorName, requireUser } from '../../auth/authorize';
import { fail } from '../../errors';
import { newOrgId } from '../../ids';
import { authedProcedure } from '../../trpc';
import { createOrgMeta, ZCreateOrgRequestSchema, ZCreateOrgResponseSchema } from './create.types';

export const createOrgRoute = authedProcedure
  .meta(createOrgMeta)
  .input(ZCreateOrgRequestSchema)
  .output(ZCreateOrgResponseSchema)
  .mutation(async ({ ctx, input }) => {
    // A person founds an organization (its first owner): an org token cannot.
    const user = requireUser(ctx.principal, 'write');
    const now = ctx.clock();
    const row = await ctx.db.transaction().execute(async (trx) => {
      const org = await insertOrg(trx, {
        id: newOrgId(),
        name: input.name,
        slug: input.slug ?? slugify(input.name, 'org'),
        slugGiven: input.slug !== undefined,
        ownerId: user.id,
        createdAt: now,
      });
      if (org !== 'taken') {
        const entry = { orgId: org.id, action: 'org.create', actor: actorName(ctx.principal), target: org.slug };
        await insertAudit(trx, { ...entry, at: now });
      }
      return org;
    });
    if (row === 'taken') fail('CONFLICT', { details: [{ path: 'slug', message: 'is in use' }] });
    return { org: { slug: row.slug, name: row.name, role: 'owner' as const, createdAt: row.created_at } };
  });
