// Password reset links: a random token (190 bits, SHA-256 stored), valid an hour, once. Made for the reset endpoint's
// e-mail and for the command that prints one on a collector without SMTP (services/collector/src/reset-link.ts).
import { type Db, findUserByEmail, insertPasswordReset } from '@collector/db';
import { newLinkToken, sha256Hex } from '../ids';
import { dashboardLink } from './links';

const PASSWORD_RESET_MS = 60 * 60 * 1000;

/** A reset link for the account with this e-mail, or undefined when there is none. */
export async function createPasswordResetLink(
  db: Db,
  email: string,
  now: number,
  publicUrl: string,
): Promise<string | undefined> {
  const user = await findUserByEmail(db, email);
  if (!user) return undefined;
  const token = newLinkToken();
  await insertPasswordReset(db, { hash: sha256Hex(token), userId: user.id, now, expiresAt: now + PASSWORD_RESET_MS });
  return dashboardLink(publicUrl, `/reset-password/${token}`);
}
