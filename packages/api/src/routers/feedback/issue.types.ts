import { z } from 'zod';
import type { Meta } from '../../trpc';
import { ZIssueIdSchema } from '../issues/get.types';
import { ZFeedbackPageRequest, ZFeedbackPageResponseSchema } from './shapes';

export const issueFeedbackMeta: Meta = {
  openapi: {
    method: 'GET',
    path: '/api/issues/{id}/feedback',
    summary: 'What users said about an issue’s events',
    description:
      'Sentry user feedback (feedback items with contexts.feedback.associated_event_id, and user_report items) about events of this ' +
      'issue, newest first; a user_report sent before its event is listed once the event arrives. Pass nextCursor back as cursor.',
    tags: ['dashboard'],
  },
  contract: { errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND'] },
};

export const ZIssueFeedbackRequestSchema = z.object({ id: ZIssueIdSchema, ...ZFeedbackPageRequest });
export const ZIssueFeedbackResponseSchema = ZFeedbackPageResponseSchema;
