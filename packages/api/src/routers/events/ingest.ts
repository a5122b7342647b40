import { ingestEvents } from '../../ingestion';
import { publicProcedure } from '../../trpc';
import { ingestMeta, ZIngestRequestSchema, ZIngestResponseSchema } from './ingest.types';

export const ingestRoute = publicProcedure
  .meta(ingestMeta)
  .input(ZIngestRequestSchema)
  .output(ZIngestResponseSchema)
  .mutation(({ ctx, input }) => ingestEvents(ctx, input));
