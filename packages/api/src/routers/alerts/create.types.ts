import { alertChannelSchema, alertTriggers, spikeSchema } from '@collector/domain';
import { z } from 'zod';
import type { Meta } from '../../trpc';
import { pathAppKey, ZAlertSchema } from './shapes';

export const createAlertMeta: Meta = {
  openapi: {
    method: 'POST',
    path: '/api/apps/{appKey}/alerts',
    summary: 'Create an alert rule',
    description:
      'trigger `new_issue`, `regression` or `spike` (with `spike: { events, minutes }`: at least that many events of one issue within that many whole minutes of receipt, at most one alert per issue per window). ' +
      'channel `{ type: "webhook", url }` (http or https; hosts on loopback, private, link-local or unspecified addresses are refused unless ALERTS_ALLOW_PRIVATE_NETWORKS=true) ' +
      'or `{ type: "email", to }` (400 when the collector has no SMTP_URL). The answer holds the `secret` that signs the webhooks.',
    tags: ['alerts'],
  },
  contract: { status: 201, errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND'] },
};

export const ZCreateAlertRequestSchema = z
  .object({
    appKey: pathAppKey,
    trigger: z.enum(alertTriggers),
    channel: alertChannelSchema,
    spike: spikeSchema.optional().meta({ description: 'Required for trigger spike, refused for the others' }),
  })
  .superRefine((input, context) => {
    if (input.trigger === 'spike' && !input.spike)
      context.addIssue({ code: 'custom', path: ['spike'], message: 'required for trigger spike: { events, minutes }' });
    if (input.trigger !== 'spike' && input.spike)
      context.addIssue({ code: 'custom', path: ['spike'], message: 'only for trigger spike' });
  });

export const ZCreateAlertResponseSchema = z.object({ alert: ZAlertSchema });
