import { insertAlert, toAlert } from '@collector/db';
import { authorizeApp } from '../../auth/authorize';
import { fail } from '../../errors';
import { newAlertId, newAlertSecret } from '../../ids';
import { authedProcedure } from '../../trpc';
import { createAlertMeta, ZCreateAlertRequestSchema, ZCreateAlertResponseSchema } from './create.types';

export const createAlertRoute = authedProcedure
  .meta(createAlertMeta)
  .input(ZCreateAlertRequestSchema)
  .output(ZCreateAlertResponseSchema)
  .mutation(async ({ ctx, input }) => {
    await authorizeApp(ctx, input.appKey, 'alerts.manage');
    const { channel } = input;
    if (channel.type === 'email' && !ctx.alerts.emailConfigured) {
      const message = 'e-mail alerts need an SMTP server: this collector has no SMTP_URL';
      fail('VALIDATION_FAILED', { details: [{ path: 'channel.type', message }] });
    }
    if (channel.type === 'webhook') {
      const refused = await ctx.alerts.refuseWebhookUrl(channel.url);
      if (refused) fail('VALIDATION_FAILED', { details: [{ path: 'channel.url', message: refused }] });
    }
    const row = {
      id: newAlertId(),
      app_key: input.appKey,
      trigger: input.trigger,
      spike_events: input.spike?.events ?? null,
      spike_minutes: input.spike?.minutes ?? null,
      channel,
      secret: newAlertSecret(),
      created_at: ctx.clock(),
    };
    await insertAlert(ctx.db, row);
    return { alert: toAlert(row) };
  });
