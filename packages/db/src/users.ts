import type { User } from '@collector/domain';
import type { Kysely } from 'kysely';
import type { Database, UserRow } from './schema';

export function toUser(row: Pick<UserRow, 'id' | 'email' | 'created_at'>): User {
  return { id: row.id, email: row.email, createdAt: row.created_at };
}

/**
 * Inserts the user with their password (one sign-in method, in user_passwords) unless the e-mail is taken; returns
 * false when it is. `db` may be a transaction, as registration's is (it makes the user's organization too).
 */
export async function insertUser(
  db: Kysely<Database>,
  user: { id: string; email: string; passwordHash: string; createdAt: number },
): Promise<boolean> {
  const inserted = await db
    .insertInto('users')
    .values({ id: user.id, email: user.email, created_at: user.createdAt })
    .onConflict((oc) => oc.column('email').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted === undefined) return false;
  await setPassword(db, user.id, user.passwordHash, user.createdAt);
  return true;
}

export async function setPassword(db: Kysely<Database>, userId: string, hash: string, now: number): Promise<void> {
  await db
    .insertInto('user_passwords')
    .values({ user_id: userId, hash, updated_at: now })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ hash, updated_at: now }))
    .execute();
}

export async function findUserByEmail(
  db: Kysely<Database>,
  email: string,
): Promise<(Pick<UserRow, 'id' | 'email' | 'created_at'> & { password_hash: string | null }) | undefined> {
  return db
    .selectFrom('users')
    .leftJoin('user_passwords', 'user_passwords.user_id', 'users.id')
    .select(['users.id', 'users.email', 'users.created_at', 'user_passwords.hash as password_hash'])
    .where('users.email', '=', email)
    .executeTakeFirst();
}

export async function findUserById(db: Kysely<Database>, id: string): Promise<User | undefined> {
  const row = await db
    .selectFrom('users')
    .select(['id', 'email', 'created_at'])
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toUser(row);
}

export async function countUsers(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function deleteUserSessions(db: Kysely<Database>, userId: string): Promise<void> {
  await db.deleteFrom('sessions').where('user_id', '=', userId).execute();
}
