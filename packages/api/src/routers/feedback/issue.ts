import { findIssue, listIssueFeedback } from '@collector/db';
import { parseIssueId } from '@collector/domain';
import { authorizeApp } from '../../auth/authorize';
import { fail } from '../../errors';
import { authedProcedure } from '../../trpc';
import { issueFeedbackMeta, ZIssueFeedbackRequestSchema, ZIssueFeedbackResponseSchema } from './issue.types';
import { feedbackPage } from './shapes';

export const issueFeedbackRoute = authedProcedure
  .meta(issueFeedbackMeta)
  .input(ZIssueFeedbackRequestSchema)
  .output(ZIssueFeedbackResponseSchema)
  .query(async ({ ctx, input }) => {
    const key = parseIssueId(input.id);
    if (!key) fail('NOT_FOUND');
    await authorizeApp(ctx, key.appKey, 'app.read');
    if (!(await findIssue(ctx.db, key))) fail('NOT_FOUND');
    const before = input.cursor === undefined ? undefined : Number(input.cursor);
    const rows = await listIssueFeedback(ctx.db, { ...key, before, limit: input.limit });
    return feedbackPage(key.appKey, rows, input.limit, key.fingerprint);
  });
