import { z } from 'zod';
import type { Meta } from '../../trpc';
import { ZAppsWindowSchema } from '../apps-scope';

export const overviewMeta: Meta = {
  openapi: {
    method: 'GET',
    path: '/api/overview',
    summary: 'Totals over one organization’s apps, or one app',
    description:
      'events: every event accepted, including those whose payloads retention or the cap per issue deleted since; errors: those of type error; ' +
      'failedRequests: those of type request; affectedUsers: distinct anonymousIds; issues: distinct issues. Over one organization’s apps (org, else ' +
      'the caller’s own, so that affectedUsers stays an exact distinct count), or one app (appKey); from (inclusive) and to (exclusive) narrow to event timestamps in a window (see the README for windows reaching before the ' +
      'retention cut-off).',
    tags: ['dashboard'],
  },
  contract: { errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND'] },
};

export const ZOverviewRequestSchema = ZAppsWindowSchema;

export const ZOverviewResponseSchema = z.object({
  totals: z.object({
    events: z.int(),
    errors: z.int(),
    failedRequests: z.int(),
    affectedUsers: z.int(),
    issues: z.int(),
  }),
});
