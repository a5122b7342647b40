// What users and SDKs tell besides events: user feedback (Sentry's `feedback` item, event-shaped, and the older
// `user_report`) and client reports (what an SDK dropped before sending). Pure: the envelope reader maps each item
// here as soon as it has read it, so only the small, cut result is held while the request goes on.
import { storableText, truncateUtf8 } from '../text';

type Json = Record<string, unknown>;

/** How much of a feedback is kept: longer texts are cut (at a character boundary), never rejected. */
export const feedbackLimits = {
  messageBytes: 4 * 1024,
  nameChars: 128,
  emailChars: 254,
  urlChars: 2048,
} as const;

export const feedbackKinds = ['feedback', 'user_report'] as const;
export type FeedbackKind = (typeof feedbackKinds)[number];

/** A feedback as the collector keeps it, before it is linked to an issue. */
export interface FeedbackInput {
  kind: FeedbackKind;
  /** What makes a retry a duplicate: the feedback item's own event_id, or the user_report's event. */
  sourceId: string;
  /** The collector's id of the event it is about (`evt_<sentry id>`, as events are stored), or null. */
  eventId: string | null;
  name: string | null;
  email: string | null;
  message: string;
  url: string | null;
}

// Sentry's ids are 32 hex characters; SDKs of other shapes send UUIDs. Anything else cannot name a stored event.
const SENTRY_ID = /^[0-9a-fA-F-]{16,64}$/;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A non-blank string, made storable and cut to `max` characters; anything else is absent. */
function text(value: unknown, max: number): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = storableText(value).trim();
  if (trimmed === '') return null;
  // Cut by code points, so a surrogate pair is never split.
  const chars = Array.from(trimmed);
  return chars.length > max ? chars.slice(0, max).join('') : trimmed;
}

function message(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = storableText(value).trim();
  return trimmed === '' ? null : truncateUtf8(trimmed, feedbackLimits.messageBytes);
}

const sentryId = (value: unknown): string | null => (typeof value === 'string' && SENTRY_ID.test(value) ? value : null);

/**
 * A `feedback` item (https://develop.sentry.dev/sdk/data-model/envelope-items/#user-feedback): an event whose
 * `contexts.feedback` holds `message` and optionally `contact_email`, `name`, `url`, `associated_event_id`.
 * `headerEventId`: the envelope header's, when the item has no event_id of its own. Undefined: not a feedback.
 */
export function feedbackFromSentry(item: Json, headerEventId?: unknown): FeedbackInput | undefined {
  const contexts = isObject(item.contexts) ? item.contexts : undefined;
  const feedback = contexts && isObject(contexts.feedback) ? contexts.feedback : undefined;
  const body = message(feedback?.message);
  const sourceId = sentryId(item.event_id) ?? sentryId(headerEventId);
  if (!feedback || body === null || sourceId === null) return undefined;
  const associated = sentryId(feedback.associated_event_id);
  return {
    kind: 'feedback',
    sourceId,
    eventId: associated === null ? null : `evt_${associated}`,
    name: text(feedback.name, feedbackLimits.nameChars),
    email: text(feedback.contact_email, feedbackLimits.emailChars),
    message: body,
    url: text(feedback.url, feedbackLimits.urlChars),
  };
}

/** A `user_report` item, Sentry's older form: `{ event_id, name, email, comments }`. Undefined: not one. */
export function userReportFromSentry(item: Json): FeedbackInput | undefined {
  const eventId = sentryId(item.event_id);
  const body = message(item.comments);
  if (eventId === null || body === null) return undefined;
  return {
    kind: 'user_report',
    sourceId: eventId,
    eventId: `evt_${eventId}`,
    name: text(item.name, feedbackLimits.nameChars),
    email: text(item.email, feedbackLimits.emailChars),
    message: body,
    url: null,
  };
}

/**
 * The reasons Sentry's SDKs give for dropping an event (Relay's DiscardReason, as SDKs send it). Any other reason is
 * counted as `other`: the total stays what the SDK said it dropped, and a made-up reason cannot add a row of its own.
 */
export const clientDiscardReasons = [
  'queue_overflow',
  'cache_overflow',
  'buffer_overflow',
  'ratelimit_backoff',
  'network_error',
  'sample_rate',
  'before_send',
  'event_processor',
  'send_error',
  'internal_sdk_error',
  'insufficient_data',
  'backpressure',
  'ignored',
  'other',
] as const;
export type ClientDiscardReason = (typeof clientDiscardReasons)[number];

export interface ClientDiscard {
  reason: ClientDiscardReason;
  quantity: number;
}

// Error events: Sentry's `error` category, and `default` (events of no other category, e.g. messages).
const EVENT_CATEGORIES = new Set(['error', 'default']);
// More than any SDK reports in one interval; a larger quantity is a broken or hostile client, not a count.
const MAX_QUANTITY = 1_000_000;
const known = new Set<string>(clientDiscardReasons);

/**
 * A `client_report` item's `discarded_events` for error events, summed per reason (known reasons, the rest as other).
 * Undefined when the item is not a client report; entries that are not `{ reason, category, quantity }` are skipped.
 */
export function clientDiscardsFromSentry(item: Json): ClientDiscard[] | undefined {
  const entries = item.discarded_events;
  if (entries !== undefined && !Array.isArray(entries)) return undefined;
  const sums = new Map<ClientDiscardReason, number>();
  for (const entry of entries ?? []) {
    if (!isObject(entry) || typeof entry.category !== 'string' || !EVENT_CATEGORIES.has(entry.category)) continue;
    const { quantity } = entry;
    if (typeof quantity !== 'number' || !Number.isInteger(quantity) || quantity <= 0 || quantity > MAX_QUANTITY)
      continue;
    const reason = typeof entry.reason === 'string' && known.has(entry.reason) ? entry.reason : 'other';
    sums.set(reason as ClientDiscardReason, (sums.get(reason as ClientDiscardReason) ?? 0) + quantity);
  }
  return [...sums].map(([reason, quantity]) => ({ reason, quantity }));
}
