import { listAppFeedback } from '@collector/db';
import { authorizeApp } from '../../auth/authorize';
import { authedProcedure } from '../../trpc';
import { listFeedbackMeta, ZListFeedbackRequestSchema, ZListFeedbackResponseSchema } from './list.types';
import { feedbackPage } from './shapes';

export const listFeedbackRoute = authedProcedure
  .meta(listFeedbackMeta)
  .input(ZListFeedbackRequestSchema)
  .output(ZListFeedbackResponseSchema)
  .query(async ({ ctx, input }) => {
    await authorizeApp(ctx, input.appKey, 'app.read');
    const before = input.cursor === undefined ? undefined : Number(input.cursor);
    const rows = await listAppFeedback(ctx.db, { appKey: input.appKey, before, limit: input.limit });
    return feedbackPage(input.appKey, rows, input.limit);
  });
