// An event as the events table keeps it (its payload), and as the API shows it again. A Sentry event's stack text is
// written from its exception chain's frames (sentry/event.ts), which the payload keeps as data too: stored once, as
// frames, it is written again when the event is shown. A fifth of a browser event's payload, which every write
// statement parsed, compressed and logged twice over (docs/performance.md, "A Sentry event's stack, stored once").
import { framesOf, type StoredEvent } from './event';
import { stackOfFrames } from './sentry/event';

/** The stored form: `stackFromFrames` stands in for a stack text that stackOfFrames writes again, exactly. */
export type StoredPayload = StoredEvent & { stackFromFrames?: true };

/**
 * The payload to store for an accepted event. The stack text is left out only when stackOfFrames gives it back
 * character for character: not when judging cut it to its limit, nor for a client's own text beside its frames.
 */
export function storedPayload(event: StoredEvent): StoredPayload {
  if (event.stack === undefined || (event.exceptions === undefined && event.threads === undefined)) return event;
  if (stackOfFrames(event) !== event.stack) return event;
  const { stack: _written, ...payload }: StoredPayload = event;
  payload.stackFromFrames = true;
  return payload;
}

/**
 * A stored event as the API returns it: its stack text written again if it was stored as frames, `frames` from its
 * chain when it has none of its own, `handled` null if unknown.
 */
export function presentEvent<T extends StoredEvent>(stored: T & { stackFromFrames?: true }): T {
  const { stackFromFrames, ...event } = stored;
  const frames = event.frames === undefined ? framesOf(event) : undefined;
  return {
    ...event,
    ...(stackFromFrames && { stack: stackOfFrames(event) }),
    ...(frames !== undefined && frames.length > 0 && { frames }),
    handled: event.handled ?? null,
  } as T;
}
