import { createPasswordResetLink } from '../../auth/password-reset';
import { throttle } from '../../rate-limiter';
import { publicProcedure } from '../../trpc';
import { passwordResetMeta, ZPasswordResetRequestSchema, ZPasswordResetResponseSchema } from './password-reset.types';

export const passwordResetRoute = publicProcedure
  .meta(passwordResetMeta)
  .input(ZPasswordResetRequestSchema)
  .output(ZPasswordResetResponseSchema)
  .mutation(async ({ ctx, input }) => {
    const now = ctx.clock();
    throttle(ctx.rateLimiters, 'password-reset', { user: input.email, address: ctx.clientAddress }, now);
    const sendMail = ctx.accounts?.sendMail;
    // Without SMTP nothing is made: an operator prints a link with `pnpm reset-link`.
    if (sendMail) {
      const link = await createPasswordResetLink(ctx.db, input.email, now, ctx.publicUrl());
      if (link) {
        // Not awaited, so that an address with an account answers as fast as one without.
        void sendMail({
          to: input.email,
          subject: 'Reset your collector password',
          text: `Someone asked to reset the password of this account. To choose a new one, within the hour: ${link}\n\nIf it was not you, ignore this e-mail.\n`,
        });
      }
    }
    return { accepted: true as const };
  });
