import { z } from 'zod';
import type { Meta } from '../../trpc';
import { pathAlertId, pathAppKey } from './shapes';

export const deleteAlertMeta: Meta = {
  openapi: {
    method: 'DELETE',
    path: '/api/apps/{appKey}/alerts/{id}',
    summary: 'Delete an alert rule',
    description: 'Its deliveries go with it, pending ones included: a deleted rule sends nothing more.',
    tags: ['alerts'],
  },
  contract: { status: 204, errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND'] },
};

export const ZDeleteAlertRequestSchema = z.object({ appKey: pathAppKey, id: pathAlertId });
export const ZDeleteAlertResponseSchema = z.void();
