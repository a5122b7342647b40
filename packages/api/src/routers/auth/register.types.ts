import { credentialsSchema, emailSchema, limits } from '@collector/domain';
import { ZAuthResponseSchema } from '../../schemas';
import type { Meta } from '../../trpc';

export const registerMeta: Meta = {
  openapi: {
    method: 'POST',
    path: '/api/auth/register',
    summary: 'Create an account and sign in',
    description:
      'E-mail: trimmed, case-insensitive, at most 254 characters. Password: 8 to 128 characters, not one of the 50,000 most common.',
    tags: ['auth'],
    protect: false,
  },
  contract: {
    status: 201,
    errors: [
      'INVALID_JSON',
      'VALIDATION_FAILED',
      'EMAIL_TAKEN',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
      'RATE_LIMITED',
    ],
  },
};

export const ZRegisterRequestSchema = credentialsSchema.extend({
  email: emailSchema.meta({
    format: 'email',
    description: `An e-mail address; surrounding spaces are trimmed first, then at most ${limits.emailChars} characters; compared case-insensitively`,
  }),
});
export const ZRegisterResponseSchema = ZAuthResponseSchema;
