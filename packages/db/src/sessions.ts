import type { Kysely } from 'kysely';
import { prepared } from './connection';
import type { Database, SessionRow, UserRow } from './schema';

export async function insertSession(db: Kysely<Database>, session: SessionRow): Promise<void> {
  await db.insertInto('sessions').values(session).execute();
}

export type SessionWithUser = SessionRow & { user: Pick<UserRow, 'id' | 'email' | 'created_at'> };

// Every request signed in with a session makes this look-up: prepared once per connection.
const sessionWithUser = prepared((db, sessionId: string) =>
  db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select([
      'sessions.id',
      'sessions.user_id',
      'sessions.created_at',
      'sessions.expires_at',
      'sessions.absolute_expires_at',
      'users.email',
      'users.created_at as user_created_at',
    ])
    .where('sessions.id', '=', sessionId),
);

export async function findSessionWithUser(
  db: Kysely<Database>,
  sessionId: string,
): Promise<SessionWithUser | undefined> {
  const row = (await db.executeQuery(sessionWithUser(db, sessionId))).rows[0];
  if (!row) return undefined;
  const { email, user_created_at, ...session } = row;
  return { ...session, user: { id: session.user_id, email, created_at: user_created_at } };
}

export async function updateSessionExpiry(db: Kysely<Database>, sessionId: string, expiresAt: number): Promise<void> {
  await db.updateTable('sessions').set({ expires_at: expiresAt }).where('id', '=', sessionId).execute();
}

export async function deleteSession(db: Kysely<Database>, sessionId: string): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', sessionId).execute();
}
