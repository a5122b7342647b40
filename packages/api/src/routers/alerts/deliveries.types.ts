import { limits } from '@collector/domain';
import { z } from 'zod';
import { queryPageSize } from '../../schemas';
import type { Meta } from '../../trpc';
import { pathAppKey, ZAlertDeliverySchema } from './shapes';

export const listDeliveriesMeta: Meta = {
  openapi: {
    method: 'GET',
    path: '/api/apps/{appKey}/alerts/deliveries',
    summary: 'The app’s latest alert deliveries, newest first',
    description: `At most \`limit\` (1 to ${limits.pageSizeMax}, default ${limits.pageSizeDefault}). A delivery is \`pending\` until a 2xx answer (\`delivered\`) or until its retries over 24 hours are spent (\`failed\`).`,
    tags: ['alerts'],
  },
  contract: { errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND'] },
};

export const ZListDeliveriesRequestSchema = z.object({
  appKey: pathAppKey,
  limit: queryPageSize(limits.pageSizeDefault),
});
export const ZListDeliveriesResponseSchema = z.object({ deliveries: z.array(ZAlertDeliverySchema) });
