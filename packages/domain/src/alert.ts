// Alerts: the rules a user sets per app (what triggers one, where it goes) and the retry schedule of its deliveries.
import { z } from 'zod';
import { emailSchema } from './account';
import { isStorableText, UNSTORABLE_MESSAGE } from './text';

export const alertTriggers = ['new_issue', 'regression', 'spike'] as const;
export type AlertTrigger = (typeof alertTriggers)[number];

/** Deliveries also come from "send a test", which has no issue behind it. */
export type DeliveryTrigger = AlertTrigger | 'test';
export const deliveryStatuses = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

export const spikeLimits = { minEvents: 1, maxEvents: 1_000_000_000, minMinutes: 1, maxMinutes: 1440 } as const;

export const spikeSchema = z.object({
  events: z
    .int()
    .min(spikeLimits.minEvents)
    .max(spikeLimits.maxEvents)
    .meta({ description: 'At least this many events of one issue…' }),
  minutes: z
    .int()
    .min(spikeLimits.minMinutes)
    .max(spikeLimits.maxMinutes)
    .meta({ description: '…within this many minutes (whole minutes of receipt)' }),
});
export type Spike = z.output<typeof spikeSchema>;

/** Longer URLs are refused rather than cut: a cut URL would post somewhere else. */
export const webhookUrlMaxChars = 2048;

export const webhookUrlSchema = z
  .string()
  .trim()
  .min(1)
  .max(webhookUrlMaxChars)
  .refine(isStorableText, UNSTORABLE_MESSAGE)
  .refine(
    (text) => URL.canParse(text) && ['http:', 'https:'].includes(new URL(text).protocol),
    'must be an http:// or https:// URL',
  )
  .refine(
    (text) => !URL.canParse(text) || (new URL(text).username === '' && new URL(text).password === ''),
    'must not carry a user name or password',
  )
  .meta({ format: 'uri', description: 'http:// or https:// only' });

export const alertChannelSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('webhook'), url: webhookUrlSchema }),
  z.object({ type: z.literal('email'), to: emailSchema }),
]);
export type AlertChannel = z.output<typeof alertChannelSchema>;

export interface Alert {
  id: string;
  trigger: AlertTrigger;
  spike: Spike | null;
  channel: AlertChannel;
  secret: string;
  createdAt: number;
}

export interface AlertDelivery {
  id: string;
  alertId: string;
  trigger: DeliveryTrigger;
  issueId: string | null;
  status: DeliveryStatus;
  attempts: number;
  lastError: string | null;
  createdAt: number;
  deliveredAt: number | null;
}

/** How long a delivery is retried before it is `failed`. */
export const deliveryRetryWindowMs = 24 * 3_600_000;

/**
 * When the next attempt is due after `attempts` failed ones: firstRetryMs after the first, doubling, and never later
 * than the end of the retry window (a last attempt there); null once that window is spent.
 */
export function nextAttemptAt(
  delivery: { createdAt: number; attempts: number },
  now: number,
  firstRetryMs: number,
): number | null {
  const end = delivery.createdAt + deliveryRetryWindowMs;
  if (now >= end) return null;
  const delay = firstRetryMs * 2 ** Math.min(Math.max(delivery.attempts - 1, 0), 30);
  return Math.min(now + delay, end);
}
