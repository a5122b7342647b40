import { findIssue, listIssueHistory } from '@collector/db';
import { parseIssueId } from '@collector/domain';
import { authorizeApp } from '../../auth/authorize';
import { fail } from '../../errors';
import { authedProcedure } from '../../trpc';
import {
  issueActivityMeta,
  type issueActivityTypes,
  ZIssueActivityRequestSchema,
  ZIssueActivityResponseSchema,
} from './activity.types';

type ActivityType = (typeof issueActivityTypes)[number];

export const issueActivityRoute = authedProcedure
  .meta(issueActivityMeta)
  .input(ZIssueActivityRequestSchema)
  .output(ZIssueActivityResponseSchema)
  .query(async ({ ctx, input }) => {
    const key = parseIssueId(input.id);
    if (!key) fail('NOT_FOUND');
    await authorizeApp(ctx, key.appKey, 'app.read');
    const issue = await findIssue(ctx.db, key);
    if (!issue) fail('NOT_FOUND');
    const before = input.cursor === undefined ? undefined : Number(input.cursor);
    const rows = await listIssueHistory(ctx.db, { ...key, before, limit: input.limit });
    const page = rows.slice(0, input.limit);
    const activity = page.map((row) => ({
      type: row.type as ActivityType,
      actor: row.actor_id && row.actor_email ? { id: row.actor_id, email: row.actor_email } : null,
      data: row.type === 'comment' ? { id: `comment_${row.id}`, ...row.data } : row.data,
      at: row.at,
    }));
    const hasMore = rows.length > input.limit;
    // What the write path decides (the first event, a regression) is read from the issue itself, on the last page:
    // the write path keeps no history, only the latest regression.
    if (!hasMore) {
      if (issue.regressed_at !== null)
        activity.push({ type: 'regression', actor: null, data: {}, at: issue.regressed_at });
      activity.push({ type: 'first_seen', actor: null, data: {}, at: issue.first_seen_at });
      activity.sort((a, b) => b.at - a.at);
    }
    const last = page.at(-1);
    return { activity, nextCursor: hasMore && last ? String(last.id) : null };
  });
