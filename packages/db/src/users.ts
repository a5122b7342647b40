import type { User } from '@collector/domain';
import type { Kysely } from 'kysely';
import type { Database, UserRow } from './schema';

export function toUser(row: Pick<UserRow, 'id' | 'email' | 'created_at'>): User {
  return { id: row.id, email: row.email, createdAt: row.created_at };
}

/** Inserts the user unless the e-mail is taken; returns false when it is. */
export async function insertUser(
  db: Kysely<Database>,
  user: { id: string; email: string; passwordHash: string; createdAt: number },
): Promise<boolean> {
  const inserted = await db
    .insertInto('users')
    .values({ id: user.id, email: user.email, password_hash: user.passwordHash, created_at: user.createdAt })
    .onConflict((oc) => oc.column('email').doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function findUserByEmail(db: Kysely<Database>, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}
