import { judgeEvent, type StoredEvent } from '@collector/domain';
import { fail } from '../../errors';
import { publicProcedure } from '../../trpc';
import { ingestMeta, type TIngestResponse, ZIngestRequestSchema, ZIngestResponseSchema } from './ingest.types';

export const ingestRoute = publicProcedure
  .meta(ingestMeta)
  .input(ZIngestRequestSchema)
  .output(ZIngestResponseSchema)
  .mutation(async ({ ctx, input }) => {
    const receivedAt = ctx.clock();
    if (!(await ctx.knownApps.exists(input.appKey))) fail('UNKNOWN_APP_KEY');
    try {
      ctx.rateLimiters.ingest?.take(input.appKey, input.events.length, receivedAt);
    } catch (error) {
      ctx.outcomes.count(input.appKey, 'rate_limited', input.events.length, receivedAt);
      throw error;
    }

    const accepted: StoredEvent[] = [];
    const rejected: TIngestResponse['rejected'] = [];
    for (const [index, raw] of input.events.entries()) {
      const verdict = judgeEvent(raw, { appKey: input.appKey, receivedAt });
      if (verdict.ok) accepted.push(verdict.event);
      else rejected.push({ index, ...(verdict.eventId ? { eventId: verdict.eventId } : {}), code: 'VALIDATION_FAILED', message: verdict.message });
    }

    ctx.outcomes.count(input.appKey, 'invalid', rejected.length, receivedAt);
    // The writer serialises the events at once; only their count is needed after the commit, so they can die young.
    const written = ctx.eventWriter.write({ appKey: input.appKey, events: accepted, receivedAt });
    const acceptedCount = accepted.length;
    accepted.length = 0;
    const { duplicates } = await written;
    return { accepted: acceptedCount, duplicates, rejected };
  });
