// API tokens in Sentry's formats, so that sentry-cli and the bundler plugins take them as they are: a user token is
// `sntryu_` + 64 hex; an org token is `sntrys_` + padded base64 of {iat,url,region_url,org} + `_` + unpadded base64 of
// 32 random bytes (sentry-cli splits it on `_` into exactly three parts and reads its URL and org from the middle one).
import { randomBytes } from 'node:crypto';
import { type Db, findApiTokenByHash, touchApiToken } from '@collector/db';
import { type TokenScope, tokenScopes } from '@collector/domain';
import { sha256Hex } from '../ids';

/** lastUsedAt is written when the stored one is at least this old: at most one write a minute per token. */
const LAST_USED_EVERY_MS = 60_000;

export const newUserTokenValue = () => `sntryu_${randomBytes(32).toString('hex')}`;

export function newOrgTokenValue(origin: string, orgSlug: string, now: number): string {
  const payload = { iat: Math.floor(now / 1000), url: origin, region_url: origin, org: orgSlug };
  // Standard base64 has no `_`, so the token splits into exactly three parts; the secret is left unpadded as Sentry's.
  const secret = randomBytes(32).toString('base64').replace(/=+$/, '');
  return `sntrys_${Buffer.from(JSON.stringify(payload)).toString('base64')}_${secret}`;
}

const USER_TOKEN = /^sntryu_[0-9a-f]{64}$/;
const ORG_TOKEN = /^sntrys_[A-Za-z0-9+/]+={0,2}_[A-Za-z0-9+/]{43}$/;

const looksLikeApiToken = (value: string) => USER_TOKEN.test(value) || ORG_TOKEN.test(value);

export interface ApiTokenIdentity {
  tokenId: string;
  name: string;
  scopes: TokenScope[];
  /** A user token's user. */
  userId: string | null;
  /** An org token's organization. */
  orgId: string | null;
  orgSlug: string | null;
}

/** The token a value opens, or null (unknown, revoked or expired); its lastUsedAt moves at most once a minute. */
export async function validateApiToken(db: Db, value: string, now: number): Promise<ApiTokenIdentity | null> {
  if (!looksLikeApiToken(value)) return null;
  const row = await findApiTokenByHash(db, sha256Hex(value));
  if (!row || (row.expires_at !== null && now >= row.expires_at)) return null;
  if (row.last_used_at === null || now - row.last_used_at >= LAST_USED_EVERY_MS) {
    await touchApiToken(db, row.id, now, LAST_USED_EVERY_MS);
  }
  return {
    tokenId: row.id,
    name: row.name,
    scopes: row.scopes.filter((scope): scope is TokenScope => (tokenScopes as readonly string[]).includes(scope)),
    userId: row.user_id,
    orgId: row.org_id,
    orgSlug: row.org_slug,
  };
}
