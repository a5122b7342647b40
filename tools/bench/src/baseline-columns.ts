// The bare baseline's per-batch work in Node, apart from its server (baseline.ts) so the CPU stage bench (cpu.ts) runs
// the very same code: the event's columns for the one statement, the issue key derived cheaply.
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

/** The batch as the statement's column arrays. The issue key is error type + message with digits removed: cheap, no stack parsing. */
export function toColumns(events: RawEvent[]) {
  const n = events.length;
  const ids = new Array<string>(n);
  const fingerprints = new Array<string>(n);
  const types = new Array<string>(n);
  const timestamps = new Array<number>(n);
  const users = new Array<string | null>(n);
  const messages = new Array<string>(n);
  const errorTypes = new Array<string>(n);
  const payloads = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    const event = events[i] as RawEvent;
    const errorType = event.errorType ?? event.type;
    const message = event.message ?? `${event.request?.method} ${event.request?.url?.split('?', 1)[0]} failed with ${event.request?.status}`;
    ids[i] = event.eventId;
    fingerprints[i] = `${errorType}:${fnv(message.replace(/[0-9]+/g, ''))}`;
    types[i] = event.type;
    timestamps[i] = event.timestamp;
    users[i] = event.anonymousId ?? null;
    messages[i] = message;
    errorTypes[i] = errorType;
    payloads[i] = JSON.stringify(event);
  }
  return [ids, fingerprints, types, timestamps, users, messages, errorTypes, payloads];
}

