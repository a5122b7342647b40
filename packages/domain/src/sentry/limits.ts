// The bounds of the Sentry endpoints (contract, "Sentry SDK compatibility"), beside the collector's own in ../limits.
export const sentryLimits = {
  /** A request body as it arrives, compressed or not. */
  wireBytes: 1024 * 1024,
  /** An envelope after decompression: checked while it decompresses, so a bomb stops here. */
  decodedBytes: 20 * 1024 * 1024,
  /** One event: an envelope's event item, or the whole body of /store/. */
  eventBytes: 1024 * 1024,
  /**
   * A feedback, user_report or client_report item as sent: a feedback is event-shaped (contexts, breadcrumbs), a few
   * KiB from the SDKs; a larger one is skipped, not refused, so the envelope's event is still stored.
   */
  sideItemBytes: 128 * 1024,
  /** Feedback kept from one envelope (SDKs send one); more are skipped. */
  feedbackPerEnvelope: 10,
  /** A header line (the envelope's or an item's): a few fields, never more than this. */
  headerBytes: 64 * 1024,
  /**
   * Nesting of a Sentry event as sent. SDKs nest 8 levels (contexts, frames); the part the collector keeps is held to
   * its own 16 when judged. This bound only stops a payload from costing a deep parse for nothing.
   */
  eventNestingDepth: 32,
} as const;
