// What an SDK may send, and how one event is judged on its own: accepted in normalised form, or rejected with a reason.
import { z } from 'zod';
import { boundEventData } from './event-data';
import { fingerprintOf, GROUPING_VERSION, normalizeMessage, requestLine, topFrames } from './fingerprint';
import { eventLevels } from './level';
import { eventDataLimits, eventFieldChars, limits } from './limits';
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

/** A text judging cuts to its own limit (event-data.ts) rather than rejects: bounded here only by the body's size. */
const bodyLong = () => z.string().max(limits.ingestBodyBytes);

/**
 * A request: for a failed request (type "request") the one that failed, with its method; for an error, the HTTP
 * request it happened in (what Sentry's SDKs send as `request`). Headers, query and data are scrubbed and bounded
 * (event-data.ts).
 */
export const requestInfoSchema = z.object({
  method: z
    .string()
    .regex(/^[A-Za-z]{1,16}$/, 'must be an HTTP method')
    .optional(),
  url: z.string().min(1).max(eventFieldChars.url),
  status: z.int().min(0).max(999).optional(),
  durationMs: z.number().min(0).max(86_400_000).optional(),
  query: bodyLong().optional(),
  headers: z.record(bodyLong(), bodyLong()).optional(),
  data: z.unknown().optional(),
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
  module: z.string().max(limits.frameFunctionChars).optional(),
  /** The frame's full path or URL, when `file` is a shorter name for it. */
  absPath: z.string().max(limits.frameFileChars).optional(),
  /** The source line and the lines around it, as the SDK read them. */
  contextLine: z.string().max(eventDataLimits.contextLineChars).optional(),
  preContext: z.array(z.string().max(eventDataLimits.contextLineChars)).max(eventDataLimits.contextLines).optional(),
  postContext: z.array(z.string().max(eventDataLimits.contextLineChars)).max(eventDataLimits.contextLines).optional(),
  /**
   * The frame as the SDK sent it, present only when a source map mapped it (issue 22): the fields above are then the
   * original source's (file, line, column, the enclosing function's original name, context from sourcesContent).
   */
  raw: z
    .object({
      function: z.string().max(limits.frameFunctionChars).optional(),
      file: z.string().max(limits.frameFileChars).optional(),
      line: z.int().min(0).max(100_000_000).optional(),
      column: z.int().min(0).max(100_000_000).optional(),
      absPath: z.string().max(limits.frameFileChars).optional(),
    })
    .optional(),
});

export type StackFrame = z.output<typeof stackFrameSchema>;

/** One exception of a chain (Sentry's `exception.values[]`), its frames innermost first like the event's own. */
export const exceptionSchema = z.object({
  type: z.string().max(eventFieldChars.errorType).optional(),
  value: z.string().max(eventDataLimits.exceptionValueChars).optional(),
  module: z.string().max(limits.frameFunctionChars).optional(),
  mechanism: z.object({ type: z.string().max(64).optional(), handled: z.boolean().optional() }).optional(),
  frames: z.array(stackFrameSchema).max(limits.stackFrames),
});

export type EventException = z.output<typeof exceptionSchema>;

const userFieldSchema = z.string().max(eventDataLimits.userFieldChars).optional();
const nameSchema = z.string().max(eventDataLimits.nameChars).optional();

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
  /** Sentry's event data (contract, third release): bounded and scrubbed by boundEventData, cuts named in `cut`. */
  tags: z.record(bodyLong(), bodyLong()).optional(),
  contexts: z.record(bodyLong(), z.record(bodyLong(), z.unknown())).optional(),
  extra: z.record(bodyLong(), z.unknown()).optional(),
  user: z
    .object({ id: userFieldSchema, email: userFieldSchema, username: userFieldSchema, ip_address: userFieldSchema })
    .optional(),
  /** Whether the SDK caught the error itself (false: it crashed the program or reached a global handler). */
  handled: z.boolean().nullable().optional(),
  /** The exception chain, the cause first and the main exception last, as Sentry orders it. */
  exceptions: z.array(exceptionSchema).max(eventDataLimits.exceptions).optional(),
  /** A thread's stack, kept when the event has no exception stack (sentry-go's messages). */
  threads: z
    .array(
      z.object({
        name: nameSchema,
        crashed: z.boolean().optional(),
        current: z.boolean().optional(),
        frames: z.array(stackFrameSchema).max(limits.stackFrames),
      }),
    )
    .max(1)
    .optional(),
  logger: nameSchema,
  serverName: nameSchema,
  transaction: nameSchema,
  /** The release's distribution (Sentry's `dist`): source maps are looked up by release, dist and URL. */
  dist: z.string().max(eventDataLimits.distChars).optional(),
  /**
   * Sentry's `debug_meta.images` of type sourcemap: the debug ID of each bundled file (`codeFile`: its URL or path, as
   * frames name it). Kept so that a map uploaded after the event can still be applied when it is shown.
   */
  debugImages: z
    .array(
      z.object({
        codeFile: z.string().max(limits.frameFileChars),
        debugId: z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      }),
    )
    .max(eventDataLimits.debugImages)
    .optional(),
  /**
   * What symbolication did at ingestion (issue 22), present when the event had frames a map could apply to:
   * `mapped` (every frame that had a map), `partial`, `missing` (no map known), `timeout` and `error` (stored unmapped;
   * `detail` says why).
   */
  symbolication: z
    .object({
      state: z.enum(['mapped', 'partial', 'missing', 'timeout', 'error']),
      detail: z.string().max(eventDataLimits.symbolicationDetailChars).optional(),
    })
    .optional(),
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
  /** The parts cut for being over their limit: `tags`, `contexts`, `extra`, `request.data`... */
  cut: z.array(z.string()).optional(),
  /** The grouping version that made `fingerprint`; absent when the client sent its own. */
  grouping: z.int().optional(),
  /** The previous grouping version's fingerprint, when it differs: an existing issue under it takes the event. */
  previousFingerprint: z.string().optional(),
});

export type EventInput = z.input<typeof eventSchema>;

export type StoredEvent = z.output<typeof storedEventSchema>;

export type EventVerdict =
  | { ok: true; event: StoredEvent }
  | { ok: false; eventId: string | undefined; message: string };

/** The message an issue shows: the error's own, or for a failed request a line naming it. */
export function displayMessage(event: Pick<StoredEvent, 'message' | 'request' | 'type'>): string {
  if (event.message) return event.message;
  if (event.request && event.type === 'request') {
    const { method = 'GET', url, status } = event.request;
    return `${method.toUpperCase()} ${url.split(/[?#]/, 1)[0]} ${status ? `failed with ${status}` : 'failed'}`;
  }
  return '';
}

/**
 * The frames an event is shown and grouped by: its own (the batch endpoint's), else its main exception's (a Sentry
 * event keeps its frames once, in its exception chain), else a thread's.
 */
export function framesOf(event: Pick<StoredEvent, 'frames' | 'exceptions' | 'threads'>): StackFrame[] | undefined {
  return event.frames ?? event.exceptions?.at(-1)?.frames ?? event.threads?.[0]?.frames;
}

export function errorTypeOf(event: Pick<StoredEvent, 'errorType' | 'type'>): string {
  return event.errorType ?? event.type;
}

/**
 * The event's fingerprint under the current grouping version, and under the previous one when that differs. The
 * previous version is computed from what it read: a Sentry error's request and a thread's stack took no part then.
 */
export function fingerprintsOf(
  event: Pick<StoredEvent, 'type' | 'errorType' | 'message' | 'stack' | 'request' | 'threads'>,
  source: 'batch' | 'sentry',
): { fingerprint: string; grouping: number; previous?: string } {
  const errorType = errorTypeOf(event);
  const message = event.message ?? '';
  const request = event.type === 'request' ? event.request : undefined;
  const frames = event.stack ? topFrames(event.stack) : [];
  const normalized = normalizeMessage(message, GROUPING_VERSION);
  const line = requestLine(request, GROUPING_VERSION);
  const fingerprint = fingerprintOf(errorType, normalized, line, frames);
  const previousRequest = source === 'batch' || event.type === 'request' ? event.request : undefined;
  const previousStack = source === 'sentry' && event.threads ? undefined : event.stack;
  // The previous version costs a second fingerprint only when it can differ: most events have no short prefixed id.
  const mayDiffer =
    previousStack !== event.stack ||
    previousRequest !== request ||
    MAYBE_PREFIXED_ID.test(message.slice(0, 2048)) ||
    (previousRequest !== undefined && MAYBE_PREFIXED_ID.test(previousRequest.url.slice(0, 2048)));
  if (!mayDiffer) return { fingerprint, grouping: GROUPING_VERSION };
  // Its parts, the top frames reused when the stack is the same: an id the current version replaced often sat where
  // the previous one replaced more (inside a URL), and then no second hash is needed either.
  const previousNormalized = normalizeMessage(message, 1);
  const previousLine = requestLine(previousRequest, 1);
  const previousFrames = previousStack === event.stack ? frames : previousStack ? topFrames(previousStack) : [];
  if (previousNormalized === normalized && previousLine === line && previousFrames === frames)
    return { fingerprint, grouping: GROUPING_VERSION };
  const previous = fingerprintOf(errorType, previousNormalized, previousLine, previousFrames);
  return previous === fingerprint
    ? { fingerprint, grouping: GROUPING_VERSION }
    : { fingerprint, grouping: GROUPING_VERSION, previous };
}

/** What a short prefixed id needs (letter, separator, a digit later in the run): a cheap test before grouping twice. */
const MAYBE_PREFIXED_ID = /[A-Za-z][_-][A-Za-z0-9]*\d/;

export interface JudgeContext {
  appKey: string;
  receivedAt: number;
  /** Where the event came from: a Sentry event's request took no part in its grouping before version 2. */
  source?: 'batch' | 'sentry';
  /** False: the user's `ip_address` is dropped (STORE_IP). */
  storeIp?: boolean;
}

export function judgeEvent(raw: unknown, context: JudgeContext): EventVerdict {
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
  if (input.type === 'request' && input.request && input.request.method === undefined) {
    return { ok: false, eventId: input.eventId, message: 'request.method: is required' };
  }
  // zod's output is a new object of our own: it is completed in place rather than copied (ingestion's hot path).
  const event = input as StoredEvent;
  event.appKey = context.appKey;
  // A client may send the server's own fingerprint (the browser SDK computes it, so beforeSend can change it): that one
  // is grouped as the server's, under its version, so grouping upgrades reach it too. Any other is the client's own.
  const computed = fingerprintsOf(input, context.source ?? 'batch');
  if (input.fingerprint === undefined || input.fingerprint === computed.fingerprint) {
    event.fingerprint = computed.fingerprint;
    event.grouping = computed.grouping;
    if (computed.previous !== undefined) event.previousFingerprint = computed.previous;
  } else if (input.fingerprint === computed.previous) {
    // An SDK built before version 2 (the previous fingerprint that can differ here: version 3 differs from 2 only once
    // a source map mapped the event, after judging): its issues are version 1's.
    event.grouping = 1;
  }
  if (
    input.tags ||
    input.contexts ||
    input.extra ||
    input.user ||
    input.request ||
    input.breadcrumbs ||
    input.url?.includes('?')
  ) {
    boundEventData(event, { storeIp: context.storeIp ?? true });
  }
  const { timestamp } = input;
  if (timestamp > context.receivedAt + limits.futureSkewMs || timestamp < context.receivedAt - limits.maxEventAgeMs) {
    event.timestamp = context.receivedAt;
    event.clientTimestamp = timestamp;
  }
  return { ok: true, event };
}
