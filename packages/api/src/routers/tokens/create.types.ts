import { isStorableText, UNSTORABLE_MESSAGE } from '@collector/domain';
import { z } from 'zod';
import { slugParameter } from '../../schemas';
import type { Meta } from '../../trpc';
import { ZApiTokenSchema, ZTokenScopeSchema } from './shapes';

export const createTokenMeta: Meta = {
  openapi: {
    method: 'POST',
    path: '/api/tokens',
    summary: 'Create an API token',
    description:
      'Without org: a user token (`sntryu_` + 64 hex) that acts as its user, narrowed to its scopes. With org (owner or admin): ' +
      'an org token (Sentry’s `sntrys_` format, carrying PUBLIC_URL’s origin and the org’s slug, so sentry-cli needs no --url or ' +
      '--org) that belongs to the organization and outlives its creator’s membership. value is shown only here; only its SHA-256 ' +
      'is stored. Scopes: read (every GET), write (triage, comments, alerts, apps), releases. With a path in PUBLIC_URL an org ' +
      'token is 409 CONFLICT (sentry-cli works only at a host’s root). Made by a person: a session or a user token with write.',
    tags: ['tokens'],
  },
  contract: { status: 201, errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND', 'CONFLICT'] },
};

export const ZCreateTokenRequestSchema = z.object({
  name: z.string().trim().min(1).max(100).refine(isStorableText, UNSTORABLE_MESSAGE),
  scopes: z
    .array(ZTokenScopeSchema)
    .min(1)
    .max(3)
    .refine((scopes) => new Set(scopes).size === scopes.length, 'must not repeat a scope'),
  org: slugParameter.meta({ description: 'Makes an org token of this organization' }).optional(),
  expiresAt: z.int().min(0).max(8_640_000_000_000_000).meta({ description: 'ms; must be in the future' }).optional(),
});
export const ZCreateTokenResponseSchema = z.object({
  token: ZApiTokenSchema.extend({ value: z.string().meta({ description: 'The token; shown only here' }) }),
});
