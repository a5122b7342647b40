// Making an account: the user, their password, and their own organization, in one transaction.
import { type Db, insertOrg, insertUser, setOwnOrg } from '@collector/db';
import { slugify } from '@collector/domain';
import { newOrgId, newUserId } from '../ids';

/** The new user, or undefined when the e-mail is taken. */
export async function createAccount(
  db: Db,
  account: { email: string; passwordHash: string; now: number },
): Promise<{ id: string; email: string; createdAt: number } | undefined> {
  return db.transaction().execute(async (trx) => {
    const user = { id: newUserId(), email: account.email, createdAt: account.now };
    if (!(await insertUser(trx, { ...user, passwordHash: account.passwordHash }))) return undefined;
    const orgId = newOrgId();
    const org = await insertOrg(trx, {
      id: orgId,
      name: account.email,
      slug: slugify(account.email.split('@')[0] ?? '', 'org'),
      slugGiven: false,
      ownerId: user.id,
      createdAt: account.now,
    });
    if (org === 'taken') throw new Error('an organization slug made unique was taken');
    await setOwnOrg(trx, user.id, orgId);
    return user;
  });
}
