// Outcomes: what happened to the events apps sent, counted per app and UTC hour of receipt (contract, "Retention,
// payload caps and outcomes"). Zod-free, so the dashboard can import the list.

/** Every reason, in the order the API lists them. */
export const outcomeReasons = ['accepted', 'duplicate', 'invalid', 'rate_limited', 'too_large', 'unsupported'] as const;

/**
 * accepted: new events stored; duplicate: events whose eventId was already stored (or remembered after its payload was
 * deleted); invalid: events rejected one by one; rate_limited: events of requests refused with 429; too_large: events
 * refused for size that could be attributed to an app; unsupported: envelope items skipped.
 */
export type OutcomeReason = (typeof outcomeReasons)[number];

export interface OutcomeCount {
  reason: OutcomeReason;
  events: number;
}

/** Every reason once, in outcomeReasons order, 0 where nothing was counted. */
export function everyOutcome(counts: ReadonlyArray<{ reason: string; events: number }>): OutcomeCount[] {
  const byReason = new Map(counts.map((count) => [count.reason, count.events]));
  return outcomeReasons.map((reason) => ({ reason, events: byReason.get(reason) ?? 0 }));
}
