import { isStorableText, limits, UNSTORABLE_MESSAGE } from '@collector/domain';
import { z } from 'zod';
import { ZAuthResponseSchema } from '../../schemas';
import type { Meta } from '../../trpc';

export const loginMeta: Meta = {
  openapi: {
    method: 'POST',
    path: '/api/auth/login',
    summary: 'Sign in',
    description:
      'Each sign-in returns a new token. An unknown e-mail and a wrong password get the same answer in about the same time. Attempts are throttled per e-mail and per client address.',
    tags: ['auth'],
    protect: false,
  },
  contract: {
    errors: [
      'INVALID_JSON',
      'VALIDATION_FAILED',
      'INVALID_CREDENTIALS',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
      'RATE_LIMITED',
    ],
  },
};

// No format rules here: a sign-in must not tell which e-mails could exist; it only has to fail.
export const ZLoginRequestSchema = z.object({
  email: z
    .string()
    .trim()
    .max(limits.emailChars)
    .toLowerCase()
    .refine(isStorableText, UNSTORABLE_MESSAGE)
    .meta({
      description: `The e-mail registered with; trimmed first, then at most ${limits.emailChars} characters; compared case-insensitively`,
    }),
  password: z.string().max(limits.passwordMaxChars),
});
export const ZLoginResponseSchema = ZAuthResponseSchema;
