import { z } from 'zod';
import type { Meta } from '../../trpc';
import { pathAppKey, ZAlertSchema } from './shapes';

export const listAlertsMeta: Meta = {
  openapi: {
    method: 'GET',
    path: '/api/apps/{appKey}/alerts',
    summary: 'The app’s alert rules, oldest first',
    tags: ['alerts'],
  },
  contract: { errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND'] },
};

export const ZListAlertsRequestSchema = z.object({ appKey: pathAppKey });
export const ZListAlertsResponseSchema = z.object({ alerts: z.array(ZAlertSchema) });
