import { z } from 'zod';
import { queryAppKey } from '../../schemas';
import type { Meta } from '../../trpc';
import { ZFeedbackPageRequest, ZFeedbackPageResponseSchema } from './shapes';

export const listFeedbackMeta: Meta = {
  openapi: {
    method: 'GET',
    path: '/api/feedback',
    summary: 'What users said about an app',
    description:
      'Every Sentry user feedback of the app (feedback and user_report items), newest first, about one of its events (issueId set ' +
      'once that event was stored) or about the app as a whole. Pass nextCursor back as cursor.',
    tags: ['dashboard'],
  },
  contract: { errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND'] },
};

export const ZListFeedbackRequestSchema = z.object({
  appKey: queryAppKey.meta({ description: 'The app (one of the caller’s)' }),
  ...ZFeedbackPageRequest,
});
export const ZListFeedbackResponseSchema = ZFeedbackPageResponseSchema;
