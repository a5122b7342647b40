import { credentialsSchema, emailSchema, limits } from '@collector/domain';
import { z } from 'zod';
import { ZAuthResponseSchema } from '../../schemas';
import type { Meta } from '../../trpc';

export const registerMeta: Meta = {
  openapi: {
    method: 'POST',
    path: '/api/auth/register',
    summary: 'Create an account and sign in',
    description:
      'E-mail: trimmed, case-insensitive, at most 254 characters. Password: 8 to 128 characters, not one of the 50,000 most common. ' +
      'Makes the user’s own organization (they own it). invitation: the token of an invitation for this e-mail, which also makes ' +
      'the account a member of its organization; under REGISTRATION=invite it is required (except for the very first user), ' +
      'under REGISTRATION=closed only the first user registers (403 FORBIDDEN otherwise).',
    tags: ['auth'],
    protect: false,
  },
  contract: {
    status: 201,
    errors: [
      'INVALID_JSON',
      'VALIDATION_FAILED',
      'EMAIL_TAKEN',
      'FORBIDDEN',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
      'RATE_LIMITED',
    ],
  },
};

export const ZRegisterRequestSchema = credentialsSchema.extend({
  invitation: z.string().min(1).max(200).meta({ description: 'The token of an invitation link' }).optional(),
  email: emailSchema.meta({
    format: 'email',
    description: `An e-mail address; surrounding spaces are trimmed first, then at most ${limits.emailChars} characters; compared case-insensitively`,
  }),
});
export const ZRegisterResponseSchema = ZAuthResponseSchema;
