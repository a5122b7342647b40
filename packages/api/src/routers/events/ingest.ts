import { publicProcedure } from '../../trpc';
import { ingestMeta, ZIngestRequestSchema, ZIngestResponseSchema } from './ingest.types';

export const ingestRoute = publicProcedure
  .meta(ingestMeta)
  .input(ZIngestRequestSchema)
  .output(ZIngestResponseSchema)
  .mutation(({ ctx, input }) =>
    ctx.ingestion.ingest({ appKey: input.appKey }, { format: 'batch', events: input.events }),
  );
