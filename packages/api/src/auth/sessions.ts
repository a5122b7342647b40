// Sessions after the Lucia guide: a random token goes to the client, only its SHA-256 is stored.
import { type Db, deleteSession, findSessionWithUser, insertSession, toUser, updateSessionExpiry } from '@collector/db';
import { sessionPolicy, type User } from '@collector/domain';
import { newSessionToken, sha256Hex } from '../ids';

export interface Session {
  id: string;
  user: User;
  expiresAt: number;
}

const TOKEN_SHAPE = /^session_[a-z0-9]{16,128}$/;

export async function createSession(db: Db, userId: string, now: number): Promise<string> {
  const token = newSessionToken();
  await insertSession(db, {
    id: sha256Hex(token),
    user_id: userId,
    created_at: now,
    expires_at: now + sessionPolicy.idleMs,
    absolute_expires_at: now + sessionPolicy.absoluteMs,
  });
  return token;
}

/**
 * The session a token opens, or null. The lookup is by the token's hash, so response time
 * depends on the hash, which an attacker cannot steer toward a stored one.
 */
export async function validateSessionToken(db: Db, token: string, now: number): Promise<Session | null> {
  if (!TOKEN_SHAPE.test(token)) return null;
  const id = sha256Hex(token);
  const row = await findSessionWithUser(db, id);
  if (!row) return null;
  if (now >= row.expires_at || now >= row.absolute_expires_at) {
    await deleteSession(db, id);
    return null;
  }
  let expiresAt = row.expires_at;
  // Slide the idle expiry forward, writing it back at most once a minute per session (sessionPolicy.refreshAfterMs)
  // rather than on every request.
  if (now + sessionPolicy.idleMs - expiresAt >= sessionPolicy.refreshAfterMs) {
    expiresAt = Math.min(now + sessionPolicy.idleMs, row.absolute_expires_at);
    await updateSessionExpiry(db, id, expiresAt);
  }
  return { id, user: toUser(row.user), expiresAt };
}

export const invalidateSession = (db: Db, sessionId: string) => deleteSession(db, sessionId);
