import { insertApiToken, insertAudit } from '@collector/db';
import { newOrgTokenValue, newUserTokenValue } from '../../auth/api-tokens';
import { actorName, authorizeOrg, requireUser } from '../../auth/authorize';
import { fail } from '../../errors';
import { newApiTokenId, sha256Hex } from '../../ids';
import { authedProcedure } from '../../trpc';
import { createTokenMeta, ZCreateTokenRequestSchema, ZCreateTokenResponseSchema } from './create.types';

export const createTokenRoute = authedProcedure
  .meta(createTokenMeta)
  .input(ZCreateTokenRequestSchema)
  .output(ZCreateTokenResponseSchema)
  .mutation(async ({ ctx, input }) => {
    const user = requireUser(ctx.principal, 'write');
    const now = ctx.clock();
    if (input.expiresAt !== undefined && input.expiresAt <= now) {
      fail('VALIDATION_FAILED', { details: [{ path: 'expiresAt', message: 'must be in the future' }] });
    }
    const org = input.org === undefined ? undefined : await authorizeOrg(ctx, input.org, 'tokens.manage');
    let value = newUserTokenValue();
    if (org) {
      const publicUrl = new URL(ctx.publicUrl());
      if (publicUrl.pathname.replace(/\/+$/, '') !== '') {
        fail('CONFLICT', {
          details: [{ path: 'org', message: 'PUBLIC_URL has a path, and sentry-cli only works at a host’s root' }],
        });
      }
      value = newOrgTokenValue(publicUrl.origin, org.slug, now);
    }
    const row = {
      id: newApiTokenId(),
      hash: sha256Hex(value),
      name: input.name,
      user_id: org ? null : user.id,
      org_id: org ? org.id : null,
      created_by: user.id,
      scopes: input.scopes,
      created_at: now,
      expires_at: input.expiresAt ?? null,
    };
    await insertApiToken(ctx.db, row);
    if (org) {
      const entry = { orgId: org.id, action: 'token.create', actor: actorName(ctx.principal), target: input.name };
      await insertAudit(ctx.db, { ...entry, at: now });
    }
    const token = {
      id: row.id,
      name: row.name,
      scopes: input.scopes,
      org: org?.slug ?? null,
      createdAt: now,
      lastUsedAt: null,
      expiresAt: row.expires_at,
    };
    return { token: { ...token, value } };
  });
