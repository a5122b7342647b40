import { emailSchema, passwordSchema } from '@collector/domain';
import { z } from 'zod';
import type { Meta } from '../../trpc';

export const passwordResetMeta: Meta = {
  openapi: {
    method: 'POST',
    path: '/api/auth/password-reset',
    summary: 'Ask for a password reset link by e-mail',
    description:
      '202 whatever the e-mail, so that nobody learns which addresses have accounts. With SMTP_URL, an account with this e-mail ' +
      'is sent a link valid one hour, once. Without SMTP, an operator prints one with `pnpm reset-link <email>`. Rate limited per ' +
      'e-mail and per client address.',
    tags: ['auth'],
    protect: false,
  },
  contract: { status: 202, errors: ['VALIDATION_FAILED', 'RATE_LIMITED'] },
};

export const ZPasswordResetRequestSchema = z.object({ email: emailSchema.meta({ format: 'email' }) });
export const ZPasswordResetResponseSchema = z.object({
  accepted: z.literal(true).meta({ description: 'Always true: the answer says nothing of the account' }),
});

export const confirmPasswordResetMeta: Meta = {
  openapi: {
    method: 'POST',
    path: '/api/auth/password-reset/confirm',
    summary: 'Set a new password with a reset link’s token',
    description:
      'The token works once, within the hour; every session of the account ends. A used, expired or unknown token is 404.',
    tags: ['auth'],
    protect: false,
  },
  contract: { status: 204, errors: ['VALIDATION_FAILED', 'NOT_FOUND', 'RATE_LIMITED'] },
};

export const ZConfirmPasswordResetRequestSchema = z.object({
  token: z.string().min(1).max(200).meta({ description: 'The token at the end of the reset link' }),
  password: passwordSchema,
});
export const ZConfirmPasswordResetResponseSchema = z.void();
