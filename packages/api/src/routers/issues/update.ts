import { setIssueStatus, toIssue } from '@collector/db';
import { parseIssueId } from '@collector/domain';
import { fail } from '../../errors';
import { authedProcedure } from '../../trpc';
import { updateIssueMeta, ZUpdateIssueRequestSchema, ZUpdateIssueResponseSchema } from './update.types';

export const updateIssueRoute = authedProcedure
  .meta(updateIssueMeta)
  .input(ZUpdateIssueRequestSchema)
  .output(ZUpdateIssueResponseSchema)
  .mutation(async ({ ctx, input }) => {
    const key = parseIssueId(input.id);
    // Another user's issue is answered exactly like one that does not exist.
    const row =
      key &&
      (await setIssueStatus(ctx.db, { userId: ctx.session.user.id, ...key, status: input.status, now: ctx.clock() }));
    if (!key || !row) fail('NOT_FOUND');
    return { issue: toIssue(row) };
  });
