import { z } from 'zod';
import type { Meta } from '../../trpc';
import { pathAlertId, pathAppKey, ZAlertDeliverySchema } from './shapes';

export const testAlertMeta: Meta = {
  openapi: {
    method: 'POST',
    path: '/api/apps/{appKey}/alerts/{id}/test',
    summary: 'Send a test through an alert rule',
    description:
      'Sends a sample alert (trigger `test`, a sample issue) through the rule’s channel at once, signed like any other, and answers with its delivery after that one attempt: `delivered`, or `failed` with `lastError`. A test is not retried.',
    tags: ['alerts'],
  },
  contract: { errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND'] },
};

export const ZTestAlertRequestSchema = z.object({ appKey: pathAppKey, id: pathAlertId });
export const ZTestAlertResponseSchema = z.object({ delivery: ZAlertDeliverySchema });
