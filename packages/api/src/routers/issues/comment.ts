import { findIssue, insertIssueHistory } from '@collector/db';
import { parseIssueId } from '@collector/domain';
import { authorizeApp, principalKey } from '../../auth/authorize';
import { fail } from '../../errors';
import { throttle } from '../../rate-limiter';
import { authedProcedure } from '../../trpc';
import { commentMeta, ZCommentRequestSchema, ZCommentResponseSchema } from './comment.types';

export const commentRoute = authedProcedure
  .meta(commentMeta)
  .input(ZCommentRequestSchema)
  .output(ZCommentResponseSchema)
  .mutation(async ({ ctx, input }) => {
    const key = parseIssueId(input.id);
    if (!key) fail('NOT_FOUND');
    await authorizeApp(ctx, key.appKey, 'issue.triage');
    if (!(await findIssue(ctx.db, key))) fail('NOT_FOUND');
    const now = ctx.clock();
    throttle(ctx.rateLimiters, 'comment', { user: principalKey(ctx.principal), address: ctx.clientAddress }, now);
    const author = ctx.principal.user && { id: ctx.principal.user.id, email: ctx.principal.user.email };
    const [id] = await insertIssueHistory(ctx.db, [
      { ...key, type: 'comment', actorId: author?.id ?? null, data: { text: input.text }, at: now },
    ]);
    return { comment: { id: `comment_${id}`, text: input.text, author, createdAt: now } };
  });
