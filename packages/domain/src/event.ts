// What an SDK may send, and how one event is judged on its own: accepted in normalised form, or rejected with a reason.
import { z } from 'zod';
import { computeFingerprint } from './fingerprint';
import { eventLevels } from './level';
import { eventFieldChars, limits } from './limits';
import { scanJson, storableCopy, truncateUtf8 } from './text';
import { detailsOf, summarize } from './validation';

export const eventTypes = ['error', 'request'] as const;
export type EventType = (typeof eventTypes)[number];

const prefixedId = (prefix: string, maxChars: number) =>
  z
    .string()
    .regex(
      new RegExp(`^${prefix}[A-Za-z0-9_-]{1,${maxChars}}$`),
      `must look like ${prefix}<id> (letters, digits, _ and -)`,
    );

// Missing stays zod's own "received undefined" (reported as "is required"); any other wrong value reads as the contract
// writes it. Any integer is taken: one out of range is replaced by the time of receipt in judgeEvent, not rejected.
const eventTimestampSchema = z
  .number({ error: (issue) => (issue.input === undefined ? undefined : 'expected integer') })
  .refine(Number.isInteger, 'expected integer');

export const fingerprintPattern = /^[A-Za-z0-9._-]{1,64}:[A-Za-z0-9._-]{1,128}$/;

// overwrite, not transform: the schema stays a string (no pipe to run, one shape for input and output documents).
const truncatedTo = (maxBytes: number) => z.string().overwrite((text) => truncateUtf8(text, maxBytes));

/** A breadcrumb as stored and returned. */
export const breadcrumbSchema = z.object({
  timestamp: z.number().optional(),
  category: z.string().max(eventFieldChars.breadcrumbCategory).optional(),
  message: z.string().optional(),
  level: z.string().max(eventFieldChars.breadcrumbLevel).optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});

const breadcrumbInputSchema = breadcrumbSchema.extend({
  message: truncatedTo(limits.breadcrumbMessageBytes).optional(),
});

export const requestInfoSchema = z.object({
  method: z.string().regex(/^[A-Za-z]{1,16}$/, 'must be an HTTP method'),
  url: z.string().min(1).max(eventFieldChars.url),
  status: z.int().min(0).max(999).optional(),
  durationMs: z.number().min(0).max(86_400_000).optional(),
});

export { type EventLevel, eventLevels } from './level';

/**
 * One frame of a stack trace, kept beside the stack text so a dashboard can show frames as frames (and in-app code
 * apart from libraries) whichever SDK sent them. Bounded: at most `limits.stackFrames` frames, innermost first.
 */
export const stackFrameSchema = z.object({
  function: z.string().max(limits.frameFunctionChars).optional(),
  file: z.string().max(limits.frameFileChars).optional(),
  line: z.int().min(0).max(100_000_000).optional(),
  column: z.int().min(0).max(100_000_000).optional(),
  inApp: z.boolean().optional(),
});

export type StackFrame = z.output<typeof stackFrameSchema>;

/** Fields with the same rule on the way in and on the way out. */
const eventFields = {
  eventId: prefixedId('evt_', 64),
  type: z.enum(eventTypes),
  timestamp: eventTimestampSchema,
  platform: z.string().min(1).max(eventFieldChars.platform).optional(),
  sdkVersion: z
    .string()
    .regex(/^\d{1,9}(\.\d{1,9}){0,3}$/, 'must be dotted numeric, like 1.4.2')
    .optional(),
  sessionId: prefixedId('session_', 128).optional(),
  anonymousId: prefixedId('anon_', 128).optional(),
  errorType: z.string().min(1).max(eventFieldChars.errorType).optional(),
  request: requestInfoSchema.optional(),
  url: z.string().max(eventFieldChars.url).optional(),
  userAgent: z.string().max(eventFieldChars.userAgent).optional(),
  release: z.string().max(eventFieldChars.release).optional(),
  environment: z.string().max(eventFieldChars.environment).optional(),
  level: z.enum(eventLevels).optional(),
  frames: z.array(stackFrameSchema).max(limits.stackFrames).optional(),
};

/** What an SDK sends: long texts are truncated rather than rejected, unknown fields dropped. */
export const eventSchema = z.object({
  ...eventFields,
  appKey: z.string().max(128).optional(),
  message: truncatedTo(limits.messageBytes).optional(),
  stack: truncatedTo(limits.stackBytes).optional(),
  fingerprint: z.string().regex(fingerprintPattern, 'must look like <errorType>:<hash>').optional(),
  breadcrumbs: z.array(breadcrumbInputSchema).max(limits.breadcrumbs).optional(),
});

/** An accepted event as stored: the batch's appKey and the fingerprint filled in, an out-of-range timestamp replaced. */
export const storedEventSchema = z.object({
  ...eventFields,
  appKey: z.string(),
  message: z.string().optional(),
  stack: z.string().optional(),
  fingerprint: z.string(),
  breadcrumbs: z.array(breadcrumbSchema).optional(),
  /** The time the SDK claimed, kept when it was out of range and replaced by the time of receipt. */
  clientTimestamp: z.number().optional(),
});

export type EventInput = z.input<typeof eventSchema>;

export type StoredEvent = z.output<typeof storedEventSchema>;

export type EventVerdict =
  | { ok: true; event: StoredEvent }
  | { ok: false; eventId: string | undefined; message: string };

/** The message an issue shows: the error's own, or for a failed request a line naming it. */
export function displayMessage(event: Pick<StoredEvent, 'message' | 'request'>): string {
  if (event.message) return event.message;
  if (event.request) {
    const { method, url, status } = event.request;
    return `${method.toUpperCase()} ${url.split(/[?#]/, 1)[0]} ${status ? `failed with ${status}` : 'failed'}`;
  }
  return '';
}

export function errorTypeOf(event: Pick<StoredEvent, 'errorType' | 'type'>): string {
  return event.errorType ?? event.type;
}

export function judgeEvent(raw: unknown, context: { appKey: string; receivedAt: number }): EventVerdict {
  const claimedId =
    typeof raw === 'object' && raw !== null && 'eventId' in raw && typeof raw.eventId === 'string'
      ? raw.eventId.slice(0, 80)
      : undefined;
  // One walk for both things the schema cannot be trusted with: depth (zod recurses) and text PostgreSQL refuses.
  const scan = scanJson(raw, limits.nestingDepth);
  if (scan.tooDeep) {
    return { ok: false, eventId: claimedId, message: `nested deeper than ${limits.nestingDepth} levels` };
  }
  const parsed = eventSchema.safeParse(scan.unstorable ? storableCopy(raw) : raw);
  if (!parsed.success) {
    return { ok: false, eventId: claimedId, message: summarize(detailsOf(parsed.error.issues)) };
  }
  const input = parsed.data;
  if (input.appKey !== undefined && input.appKey !== context.appKey) {
    return { ok: false, eventId: input.eventId, message: "appKey: differs from the batch's appKey" };
  }
  // zod's output is a new object of our own: it is completed in place rather than copied (ingestion's hot path).
  const event = input as StoredEvent;
  event.appKey = context.appKey;
  event.fingerprint =
    input.fingerprint ??
    computeFingerprint({
      errorType: errorTypeOf(input),
      message: input.message,
      stack: input.stack,
      request: input.request,
    });
  const { timestamp } = input;
  if (timestamp > context.receivedAt + limits.futureSkewMs || timestamp < context.receivedAt - limits.maxEventAgeMs) {
    event.timestamp = context.receivedAt;
    event.clientTimestamp = timestamp;
  }
  return { ok: true, event };
}
