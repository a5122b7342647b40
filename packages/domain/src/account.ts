// Users and the credentials they sign up and sign in with.
import { z } from 'zod';
import { limits } from './limits';
import { isStorableText, UNSTORABLE_MESSAGE } from './text';

/** Trimmed and lower-cased: e-mails are compared case-insensitively, so they are stored in one case. */
export const emailSchema = z
  .string()
  .trim()
  .max(limits.emailChars)
  .refine(isStorableText, UNSTORABLE_MESSAGE)
  .pipe(z.email('must be an e-mail address'))
  .transform((email) => email.toLowerCase());

/** Never trimmed or truncated: what the user typed is what is hashed. */
export const passwordSchema = z.string().min(limits.passwordMinChars).max(limits.passwordMaxChars);

export const credentialsSchema = z.object({ email: emailSchema, password: passwordSchema });

export interface User {
  id: string;
  email: string;
  createdAt: number;
}
