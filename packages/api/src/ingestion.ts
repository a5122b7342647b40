// The one way events get in: the batch endpoint and the Sentry endpoints both call ingestEvents, so the known-app
// check, the rate limit, judging (bounds, fingerprint, timestamp clamp) and the group-committing writer are shared.
import { judgeEvent, type StoredEvent } from '@collector/domain';
import type { Context } from './context';
import { fail } from './errors';

export type IngestionContext = Pick<Context, 'clock' | 'knownApps' | 'rateLimiters' | 'eventWriter' | 'outcomes'>;

export interface Rejection {
  index: number;
  eventId?: string;
  code: 'VALIDATION_FAILED';
  message: string;
}

export interface IngestionResult {
  /** Events now stored, including ones stored before under the same eventId. */
  accepted: number;
  duplicates: number;
  rejected: Rejection[];
}

/**
 * Judges each event on its own and stores the accepted ones, committed before this resolves. Throws (as the contract's
 * errors) when the whole request fails: an unknown app (403), the app's rate limit (429), the database (503).
 */
export async function ingestEvents(
  ctx: IngestionContext,
  input: { appKey: string; events: readonly unknown[]; receivedAt?: number },
): Promise<IngestionResult> {
  const receivedAt = input.receivedAt ?? ctx.clock();
  if (!(await ctx.knownApps.exists(input.appKey))) fail('UNKNOWN_APP_KEY');
  try {
    await ctx.rateLimiters.ingest?.take(input.appKey, input.events.length, receivedAt);
  } catch (error) {
    // Outcomes: every event of a refused request; accepted and duplicate are counted by the write statement itself.
    ctx.outcomes.count(input.appKey, 'rate_limited', input.events.length, receivedAt);
    throw error;
  }

  const accepted: StoredEvent[] = [];
  const rejected: Rejection[] = [];
  for (const [index, raw] of input.events.entries()) {
    const verdict = judgeEvent(raw, { appKey: input.appKey, receivedAt });
    if (verdict.ok) accepted.push(verdict.event);
    else
      rejected.push({
        index,
        ...(verdict.eventId ? { eventId: verdict.eventId } : {}),
        code: 'VALIDATION_FAILED',
        message: verdict.message,
      });
  }

  ctx.outcomes.count(input.appKey, 'invalid', rejected.length, receivedAt);
  // The writer serialises the events at once; only their count is needed after the commit, so they can die young.
  const written = ctx.eventWriter.write({ appKey: input.appKey, events: accepted, receivedAt });
  const acceptedCount = accepted.length;
  accepted.length = 0;
  const { duplicates } = await written;
  return { accepted: acceptedCount, duplicates, rejected };
}
