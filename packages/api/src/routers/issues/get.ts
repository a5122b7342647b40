import { findIssue, listIssueEvents, toIssue } from '@collector/db';
import { parseIssueId } from '@collector/domain';
import { fail } from '../../errors';
import { authedProcedure } from '../../trpc';
import { getIssueMeta, ZGetIssueRequestSchema, ZGetIssueResponseSchema } from './get.types';

export const getIssueRoute = authedProcedure
  .meta(getIssueMeta)
  .input(ZGetIssueRequestSchema)
  .output(ZGetIssueResponseSchema)
  .query(async ({ ctx, input }) => {
    const key = parseIssueId(input.id);
    // Another user's issue is answered exactly like one that does not exist.
    const row = key && (await findIssue(ctx.db, { userId: ctx.session.user.id, ...key }));
    if (!key || !row) fail('NOT_FOUND');
    const events = await listIssueEvents(ctx.db, { ...key, limit: input.limit });
    return { issue: toIssue(row), events };
  });
