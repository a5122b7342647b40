// Event levels, apart from event.ts's schemas so that the dashboard and the search parser read them without zod.

/** Severity, in Sentry's words: SDKs that send it are kept as they are; the batch SDK may send it too. */
export const eventLevels = ['fatal', 'error', 'warning', 'info', 'debug'] as const;
export type EventLevel = (typeof eventLevels)[number];
