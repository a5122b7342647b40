// The bare baseline's per-batch work in Node, apart from its server (baseline.ts) so the CPU stage bench (cpu.ts) runs
// the very same code: the events as the one statement's input, the issue key derived cheaply.
export interface RawEvent {
  eventId: string;
  type: string;
  timestamp: number;
  anonymousId?: string;
  errorType?: string;
  message?: string;
  request?: { method?: string; url?: string; status?: number };
}

/** FNV-1a, 32 bits: enough to tell ~200 problems apart. */
function fnv(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16);
}

/**
 * The batch as the statement's one input: a JSON array of rows, each the event's columns plus the event itself as its
 * payload, serialised once (PostgreSQL parses it once, as jsonb). Parallel text arrays cost more on both sides: pg
 * escapes every element into an array literal, and each payload is parsed again as jsonb. The issue key is error type +
 * message with digits removed: cheap, no stack parsing.
 */
export function toRows(events: RawEvent[]): string {
  const rows = new Array<unknown>(events.length);
  for (let i = 0; i < events.length; i++) {
    const event = events[i] as RawEvent;
    const errorType = event.errorType ?? event.type;
    const message =
      event.message ??
      `${event.request?.method} ${event.request?.url?.split('?', 1)[0]} failed with ${event.request?.status}`;
    rows[i] = {
      event_id: event.eventId,
      fingerprint: `${errorType}:${fnv(message.replace(/[0-9]+/g, ''))}`,
      type: event.type,
      ts: event.timestamp,
      anonymous_id: event.anonymousId ?? null,
      message,
      error_type: errorType,
      payload: event,
    };
  }
  return JSON.stringify(rows);
}
