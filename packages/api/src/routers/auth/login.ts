import { findUserByEmail, toUser } from '@collector/db';
import { verifyPassword } from '../../auth/passwords';
import { createSession } from '../../auth/sessions';
import { fail } from '../../errors';
import { publicProcedure } from '../../trpc';
import { loginMeta, ZLoginRequestSchema, ZLoginResponseSchema } from './login.types';

export const loginRoute = publicProcedure
  .meta(loginMeta)
  .input(ZLoginRequestSchema)
  .output(ZLoginResponseSchema)
  .mutation(async ({ ctx, input }) => {
    const now = ctx.clock();
    // Throttled on failures: a spent budget refuses even the right password, but successes spend nothing.
    ctx.rateLimiters.authByAddress.take(ctx.clientAddress, 0, now);
    ctx.rateLimiters.authByEmail.take(input.email, 0, now);
    const row = await findUserByEmail(ctx.db, input.email);
    // Always one argon2 verification, against a decoy when the e-mail is unknown.
    const valid = await verifyPassword(row?.password_hash ?? undefined, input.password);
    if (!row || !valid) {
      ctx.rateLimiters.authByAddress.take(ctx.clientAddress, 1, now);
      ctx.rateLimiters.authByEmail.take(input.email, 1, now);
      fail('INVALID_CREDENTIALS');
    }
    const token = await createSession(ctx.db, row.id, now);
    return { token, user: toUser(row) };
  });
