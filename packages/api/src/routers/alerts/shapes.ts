// The alert routes' shared shapes: the rule, its delivery and the path parameters.
import { alertTriggers, deliveryStatuses, isStorableText, spikeSchema, UNSTORABLE_MESSAGE } from '@collector/domain';
import { z } from 'zod';

const epochMs = z.int().min(0).meta({ description: 'Milliseconds since the Unix epoch' });

// As stored: the request's schema (domain) trims and lower-cases, which an output schema cannot say.
const ZAlertChannelSchema = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('webhook'), url: z.string() }),
    z.object({ type: z.literal('email'), to: z.string() }),
  ])
  .meta({ id: 'AlertChannel' });

export const ZAlertSchema = z
  .object({
    id: z.string(),
    trigger: z.enum(alertTriggers),
    spike: spikeSchema.nullable().meta({ description: 'Set for trigger spike only' }),
    channel: ZAlertChannelSchema,
    secret: z.string().meta({ description: 'Key of the HMAC-SHA256 in X-Collector-Signature' }),
    createdAt: epochMs,
  })
  .meta({ id: 'Alert' });

export const ZAlertDeliverySchema = z
  .object({
    id: z.string().meta({ description: 'Sent as X-Collector-Delivery, the same on every attempt' }),
    alertId: z.string(),
    trigger: z.enum([...alertTriggers, 'test']).meta({ description: '`test` for "send a test"' }),
    issueId: z.string().nullable().meta({ description: 'null for a test' }),
    status: z.enum(deliveryStatuses),
    attempts: z.int().min(0),
    lastError: z
      .string()
      .nullable()
      .meta({ description: 'Why the last failed attempt failed (kept after a later success)' }),
    createdAt: epochMs,
    deliveredAt: epochMs.nullable(),
  })
  .meta({ id: 'AlertDelivery' });

const pathText = (max: number) => z.string().min(1).max(max).refine(isStorableText, UNSTORABLE_MESSAGE);
export const pathAppKey = pathText(128).meta({ description: 'One of the caller’s apps' });
export const pathAlertId = pathText(128);
