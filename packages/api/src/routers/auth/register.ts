import { insertUser } from '@collector/db';
import { hashPassword, isCommonPassword } from '../../auth/passwords';
import { createSession } from '../../auth/sessions';
import { fail } from '../../errors';
import { newUserId } from '../../ids';
import { publicProcedure } from '../../trpc';
import { registerMeta, ZRegisterRequestSchema, ZRegisterResponseSchema } from './register.types';

export const registerRoute = publicProcedure
  .meta(registerMeta)
  .input(ZRegisterRequestSchema)
  .output(ZRegisterResponseSchema)
  .mutation(async ({ ctx, input }) => {
    const now = ctx.clock();
    ctx.rateLimiters.authByAddress.take(ctx.clientAddress, 1, now);
    if (isCommonPassword(input.password)) {
      fail('VALIDATION_FAILED', { details: [{ path: 'password', message: 'is one of the most common passwords' }] });
    }
    const user = { id: newUserId(), email: input.email, createdAt: now };
    const inserted = await insertUser(ctx.db, { ...user, passwordHash: await hashPassword(input.password) });
    if (!inserted) fail('EMAIL_TAKEN');
    const token = await createSession(ctx.db, user.id, now);
    return { token, user };
  });
