// An API token as the token routes show it: never its value, except once, when it is made.
import type { ApiTokenRow } from '@collector/db';
import { type TokenScope, tokenScopes } from '@collector/domain';
import { z } from 'zod';

export const ZTokenScopeSchema = z.enum(tokenScopes);

export const ZApiTokenSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    scopes: z.array(ZTokenScopeSchema),
    org: z.string().nullable().meta({ description: 'The organization’s slug for an org token; null for a user token' }),
    createdAt: z.int().min(0),
    lastUsedAt: z.int().min(0).nullable().meta({ description: 'Written at most once a minute' }),
    expiresAt: z.int().min(0).nullable(),
  })
  .meta({ id: 'ApiToken' });

export const toApiToken = (row: ApiTokenRow) => ({
  id: row.id,
  name: row.name,
  scopes: row.scopes as TokenScope[],
  org: row.org_slug,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
  expiresAt: row.expires_at,
});
