import { listIssues, sortValue, toIssue } from '@collector/db';
import { decodeCursor, encodeCursor } from '@collector/domain';
import { fail } from '../../errors';
import { authedProcedure } from '../../trpc';
import { assertOwnApp } from '../own-apps';
import { listIssuesMeta, ZListIssuesRequestSchema, ZListIssuesResponseSchema } from './list.types';

export const listIssuesRoute = authedProcedure
  .meta(listIssuesMeta)
  .input(ZListIssuesRequestSchema)
  .output(ZListIssuesResponseSchema)
  .query(async ({ ctx, input }) => {
    const userId = ctx.session.user.id;
    const after = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
    if (after === null)
      fail('VALIDATION_FAILED', { details: [{ path: 'cursor', message: 'is not a cursor this service issued' }] });
    if (after && after.sort !== input.sort)
      fail('VALIDATION_FAILED', {
        details: [{ path: 'cursor', message: `belongs to sort=${after.sort}, not ${input.sort}` }],
      });
    if (input.appKey !== undefined) await assertOwnApp(ctx.db, input.appKey, userId);

    const { rows, hasMore, total } = await listIssues(ctx.db, {
      userId,
      appKey: input.appKey,
      statuses: input.status,
      search: input.q,
      type: input.type,
      release: input.release,
      environment: input.environment,
      sort: input.sort,
      after,
      limit: input.limit,
    });
    const last = rows.at(-1);
    const nextCursor =
      hasMore && last
        ? encodeCursor({
            sort: input.sort,
            value: sortValue(last, input.sort),
            appKey: last.app_key,
            fingerprint: last.fingerprint,
          })
        : null;
    return { issues: rows.map(toIssue), nextCursor, total };
  });
