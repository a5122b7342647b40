// argon2id hashing, and the rule that an unknown e-mail costs as much time as a wrong password.
/// <reference path="./vendor.d.ts" />
import { hash, verify } from '@node-rs/argon2';
import commonPasswords from 'fxa-common-password-list';

// OWASP's minimum for argon2id. The algorithm is the library's default, Argon2id (its const enum cannot be imported
// under isolatedModules).
const ARGON2_OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const hashPassword = (password: string) => hash(password, ARGON2_OPTIONS);

// Made at load, not at the first unknown e-mail, so even that first answer takes no longer than the others.
const decoyHash = hashPassword('decoy password that no account has');

/**
 * Checks a password against a stored hash, or, when there is no such user, against a decoy hash
 * so that both answers take the same time.
 */
export async function verifyPassword(storedHash: string | undefined, password: string): Promise<boolean> {
  const target = storedHash ?? (await decoyHash);
  const matches = await verify(target, password).catch(() => false);
  return storedHash !== undefined && matches;
}

/** Mozilla's list of the 50,000 most common passwords of 8 characters or more. */
export const isCommonPassword = (password: string) => commonPasswords.test(password);
