import { isStorableText, limits, UNSTORABLE_MESSAGE } from '@collector/domain';
import { z } from 'zod';
import type { Meta } from '../../trpc';

export const ingestMeta: Meta = {
  openapi: {
    method: 'POST',
    path: '/api/events/batch',
    summary: 'Ingest a batch of events',
    description:
      'Called by SDKs with no Authorization header: the appKey is the public ingestion key. Takes application/json or text/plain ' +
      `(sendBeacon), optionally gzip-encoded, up to ${limits.ingestBodyBytes} bytes after decompression. Each event is judged on its own: ` +
      'invalid ones are listed in `rejected`, the rest are stored. A retried eventId is stored once and counted in `accepted` and `duplicates`.',
    tags: ['ingestion'],
    protect: false,
    contentTypes: ['application/json', 'text/plain'],
  },
  contract: {
    errors: [
      'INVALID_JSON',
      'VALIDATION_FAILED',
      'UNKNOWN_APP_KEY',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
      'RATE_LIMITED',
    ],
  },
};

export const ZIngestRequestSchema = z.object({
  appKey: z.string().min(1).max(128).refine(isStorableText, UNSTORABLE_MESSAGE),
  // Elements are judged one by one in the procedure, so one bad event does not fail the batch.
  events: z.array(z.unknown()).min(limits.batchMinEvents).max(limits.batchMaxEvents),
});

export const ZIngestResponseSchema = z.object({
  accepted: z.int().meta({ description: 'Events now stored, including ones stored before under the same eventId' }),
  duplicates: z.int().meta({ description: 'Accepted events whose eventId was already stored' }),
  rejected: z.array(
    z.object({
      index: z.int(),
      eventId: z.string().optional(),
      code: z.literal('VALIDATION_FAILED'),
      message: z.string(),
    }),
  ),
});
