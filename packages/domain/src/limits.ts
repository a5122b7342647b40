// Every bound the contract sets, in one place so the API, the docs and the SDKs agree. Zod-free, so an SDK or the
// dashboard can import it (`@collector/domain/limits`) without bringing the schemas into its bundle.
export const limits = {
  batchMinEvents: 1,
  batchMaxEvents: 50,
  /** Request body, after decompression. */
  ingestBodyBytes: 1024 * 1024,
  /** Bodies of the dashboard and auth endpoints: a few small fields. */
  jsonBodyBytes: 64 * 1024,
  messageBytes: 8 * 1024,
  stackBytes: 64 * 1024,
  breadcrumbs: 100,
  breadcrumbMessageBytes: 2 * 1024,
  /** Structured stack frames kept with an event (innermost first), and the length of each frame's texts. */
  stackFrames: 100,
  frameFunctionChars: 256,
  frameFileChars: 1024,
  nestingDepth: 16,
  futureSkewMs: 60 * 1000,
  maxEventAgeMs: 30 * 24 * 60 * 60 * 1000,
  pageSizeDefault: 50,
  pageSizeMax: 100,
  appNameChars: 100,
  emailChars: 254,
  passwordMinChars: 8,
  passwordMaxChars: 128,
} as const;

/** Characters an event's short text fields may hold: a longer value rejects the event, so SDKs cut to these. */
export const eventFieldChars = {
  platform: 32,
  errorType: 64,
  /** The page's URL, and a failed request's. */
  url: 2048,
  userAgent: 512,
  release: 200,
  environment: 64,
  breadcrumbCategory: 64,
  breadcrumbLevel: 16,
} as const;

/**
 * Sentry's event data kept beside the collector's own fields (contract, "Sentry's event data, kept and searchable").
 * Over-limit parts are cut, not rejected, and the event's `cut` names them.
 */
export const eventDataLimits = {
  tags: 50,
  tagKeyChars: 32,
  tagValueChars: 200,
  /** contexts, extra and a request's data, each measured as JSON. */
  contextsBytes: 8 * 1024,
  extraBytes: 16 * 1024,
  requestDataBytes: 8 * 1024,
  /** A request's headers, and the length of each value; its query string. */
  requestHeaders: 64,
  headerValueChars: 1024,
  queryChars: 2048,
  /** The exception chain: the main exception and its nearest causes. */
  exceptions: 10,
  exceptionValueChars: 8 * 1024,
  /** Source lines around a frame's line, each side, and the length of each. */
  contextLines: 5,
  contextLineChars: 256,
  userFieldChars: 256,
  /** logger, serverName, transaction. */
  nameChars: 256,
  /** Sentry's `debug_meta.images` of type sourcemap (issue 22): which file each debug ID belongs to. */
  debugImages: 100,
  /** A release's dist (Sentry's limit). */
  distChars: 64,
  symbolicationDetailChars: 512,
} as const;

export const sessionPolicy = {
  /** Idle time after which a session ends; each use slides it forward. */
  idleMs: 30 * 24 * 60 * 60 * 1000,
  /** Hard cap from login, whatever the activity. */
  absoluteMs: 90 * 24 * 60 * 60 * 1000,
  /** Write the slid expiry back at most once a minute per session: a write per request is waste, a day would end sessions early. */
  refreshAfterMs: 60 * 1000,
} as const;
