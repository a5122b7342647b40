// Outcomes: what happened to the events apps sent, counted per app and UTC hour of receipt (contract, "Retention,
// payload caps and outcomes"). Zod-free, so the dashboard can import the list.
import type { ClientDiscardReason } from './sentry/feedback';

/** Every reason, in the order the API lists them. */
export const outcomeReasons = [
  'accepted',
  'duplicate',
  'invalid',
  'rate_limited',
  'too_large',
  'unsupported',
  'client_discard',
] as const;

/**
 * accepted: new events stored; duplicate: events whose eventId was already stored (or remembered after its payload was
 * deleted); invalid: events rejected one by one; rate_limited: events of requests refused with 429; too_large: events
 * refused for size that could be attributed to an app; unsupported: envelope items skipped; client_discard: error
 * events the app's SDK dropped before sending, as its client reports said.
 */
export type OutcomeReason = (typeof outcomeReasons)[number];

export interface OutcomeCount {
  reason: OutcomeReason;
  events: number;
  /** client_discard only: its events per reason the SDKs gave, the commonest first. */
  clientReasons?: Array<{ reason: ClientDiscardReason; events: number }>;
}

/** How a client_discard count is kept in the outcomes ledger: one row per reason the SDK gave. */
export const clientDiscardOutcome = (reason: ClientDiscardReason) => `client_discard:${reason}` as const;
export type StoredOutcomeReason = OutcomeReason | ReturnType<typeof clientDiscardOutcome>;

const CLIENT_DISCARD_PREFIX = 'client_discard:';

/** Every reason once, in outcomeReasons order, 0 where nothing was counted; client_discard rows summed per reason. */
export function everyOutcome(counts: ReadonlyArray<{ reason: string; events: number }>): OutcomeCount[] {
  const byReason = new Map<string, number>();
  const clientReasons: Array<{ reason: ClientDiscardReason; events: number }> = [];
  for (const { reason, events } of counts) {
    if (reason.startsWith(CLIENT_DISCARD_PREFIX)) {
      clientReasons.push({ reason: reason.slice(CLIENT_DISCARD_PREFIX.length) as ClientDiscardReason, events });
      byReason.set('client_discard', (byReason.get('client_discard') ?? 0) + events);
    } else byReason.set(reason, (byReason.get(reason) ?? 0) + events);
  }
  clientReasons.sort((a, b) => b.events - a.events || a.reason.localeCompare(b.reason));
  return outcomeReasons.map((reason) =>
    reason === 'client_discard'
      ? { reason, events: byReason.get(reason) ?? 0, clientReasons }
      : { reason, events: byReason.get(reason) ?? 0 },
  );
}
