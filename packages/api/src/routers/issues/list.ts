import { appKeyed, issueListPage, listIssues } from '@collector/db';
import { decodeCursor, encodeCursor } from '@collector/domain';
import { authorizeApp, authorizedOrgs, authorizeOrg } from '../../auth/authorize';
import { fail } from '../../errors';
import { authedProcedure } from '../../trpc';
import { presentIssue } from './assignees';
import { listIssuesMeta, ZListIssuesRequestSchema, ZListIssuesResponseSchema } from './list.types';

export const listIssuesRoute = authedProcedure
  .meta(listIssuesMeta)
  .input(ZListIssuesRequestSchema)
  .output(ZListIssuesResponseSchema)
  .query(async ({ ctx, input }) => {
    const after = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
    if (after === null)
      fail('VALIDATION_FAILED', { details: [{ path: 'cursor', message: 'is not a cursor this service issued' }] });
    if (after && after.sort !== input.sort)
      fail('VALIDATION_FAILED', {
        details: [{ path: 'cursor', message: `belongs to sort=${after.sort}, not ${input.sort}` }],
      });
    // Every organization the caller belongs to, or the one `org` names, or the one of `appKey`.
    const orgIds =
      input.appKey !== undefined
        ? [(await authorizeApp(ctx, input.appKey, 'app.read')).orgId]
        : input.org !== undefined
          ? [(await authorizeOrg(ctx, input.org, 'app.read')).id]
          : (await authorizedOrgs(ctx, 'app.read')).map((org) => org.id);
    // The caller's user id, for assignee=me and assigned:me; an organization token is no one.
    const me = ctx.principal.kind === 'org_token' ? undefined : ctx.principal.user.id;
    let assignee: string | null | undefined = input.assignee;
    if (assignee === 'me') {
      if (me === undefined)
        fail('VALIDATION_FAILED', {
          details: [{ path: 'assignee', message: 'an organization token is no one: use a user id' }],
        });
      assignee = me;
    } else if (assignee === 'none') assignee = null;
    const selfAssigned = input.q?.find((term) => term.key === 'assigned' && term.values.includes('me'));
    if (selfAssigned && me === undefined)
      fail('VALIDATION_FAILED', {
        details: [
          { path: 'q', message: `${selfAssigned.raw}: an organization token is no one: use an e-mail address` },
        ],
      });

    const { page, hasMore, total } = await listIssues(ctx.db, {
      orgIds,
      assignee,
      appKey: input.appKey,
      statuses: input.status,
      terms: input.q,
      me,
      type: input.type,
      release: input.release,
      environment: input.environment,
      sort: input.sort,
      after,
      limit: input.limit,
    });
    const last = page.at(-1);
    const nextCursor =
      hasMore && last
        ? encodeCursor({
            sort: input.sort,
            value: last.sortValue,
            appKey: last.appKey,
            fingerprint: last.fingerprint,
          })
        : null;
    // The page's rows and what is shown beside them, read by key in one statement.
    const { rows, assignees, unhandled, series } = await issueListPage(ctx.db, page, ctx.clock());
    const present = presentIssue(assignees, unhandled);
    return {
      issues: rows.map((row) =>
        Object.assign(present(row), { series: series.get(appKeyed(row.app_key, row.fingerprint)) ?? [] }),
      ),
      nextCursor,
      total,
    };
  });
