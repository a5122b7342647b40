import { clientDiscardReasons, outcomeReasons } from '@collector/domain';
import { z } from 'zod';
import type { Meta } from '../../trpc';
import { ZAppsWindowSchema } from '../apps-scope';

export const outcomesMeta: Meta = {
  openapi: {
    method: 'GET',
    path: '/api/outcomes',
    summary: 'What happened to the events apps sent, per reason',
    description:
      'Every reason once, zeros included: accepted (new events stored), duplicate (eventId already stored, or remembered after its payload was ' +
      'deleted), invalid (events rejected one by one), rate_limited (events of requests refused with 429), too_large (events refused for size ' +
      'that could be attributed to an app: see the README), unsupported (envelope items skipped), client_discard (error events the SDKs ' +
      'dropped before sending, from their client reports; clientReasons splits it by the SDK’s reason, any reason not in the list ' +
      'counted as other). Counted per app and UTC hour of receipt, and ' +
      'kept after the events themselves are deleted. Over one organization’s apps (org, else the caller’s own), or one app (appKey); from (inclusive) and to (exclusive) ' +
      'take every hour of receipt they overlap.',
    tags: ['dashboard'],
  },
  contract: { errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND'] },
};

export const ZOutcomesRequestSchema = ZAppsWindowSchema;

export const ZOutcomesResponseSchema = z.object({
  outcomes: z.array(
    z.object({
      reason: z.enum(outcomeReasons),
      events: z.int().min(0),
      clientReasons: z
        .array(z.object({ reason: z.enum(clientDiscardReasons), events: z.int().min(0) }))
        .optional()
        .meta({ description: 'client_discard only: its events per reason the SDKs gave, the commonest first' }),
    }),
  ),
});
