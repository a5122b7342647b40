// Who a bearer token is: a session (`session_...`) or an API token (`sntryu_...`, `sntrys_...`), accepted alike.
import { type Db, findUserById } from '@collector/db';
import { validateApiToken } from './api-tokens';
import type { Principal } from './authorize';
import { validateSessionToken } from './sessions';

export async function authenticate(db: Db, bearer: string, now: number): Promise<Principal | null> {
  if (bearer.startsWith('session_')) {
    const session = await validateSessionToken(db, bearer, now);
    return session && { kind: 'session', user: session.user, sessionId: session.id };
  }
  const token = await validateApiToken(db, bearer, now);
  if (!token) return null;
  if (token.orgId !== null && token.orgSlug !== null) {
    return {
      kind: 'org_token',
      user: null,
      tokenId: token.tokenId,
      tokenName: token.name,
      scopes: token.scopes,
      orgId: token.orgId,
      orgSlug: token.orgSlug,
    };
  }
  const user = token.userId === null ? undefined : await findUserById(db, token.userId);
  if (!user) return null;
  return { kind: 'user_token', user, tokenId: token.tokenId, tokenName: token.name, scopes: token.scopes };
}
