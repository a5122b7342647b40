import { deleteUserSessions, setPassword, takePasswordReset } from '@collector/db';
import { hashPassword, isCommonPassword } from '../../auth/passwords';
import { fail } from '../../errors';
import { sha256Hex } from '../../ids';
import { publicProcedure } from '../../trpc';
import {
  confirmPasswordResetMeta,
  ZConfirmPasswordResetRequestSchema,
  ZConfirmPasswordResetResponseSchema,
} from './password-reset.types';

export const confirmPasswordResetRoute = publicProcedure
  .meta(confirmPasswordResetMeta)
  .input(ZConfirmPasswordResetRequestSchema)
  .output(ZConfirmPasswordResetResponseSchema)
  .mutation(async ({ ctx, input }) => {
    const now = ctx.clock();
    ctx.rateLimiters.authByAddress.take(ctx.clientAddress, 1, now);
    if (isCommonPassword(input.password)) {
      fail('VALIDATION_FAILED', { details: [{ path: 'password', message: 'is one of the most common passwords' }] });
    }
    const userId = await takePasswordReset(ctx.db, sha256Hex(input.token), now);
    if (!userId) fail('NOT_FOUND');
    await setPassword(ctx.db, userId, await hashPassword(input.password), now);
    await deleteUserSessions(ctx.db, userId);
  });
