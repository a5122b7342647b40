import {
  findIssue,
  findMembershipRole,
  findUserById,
  insertIssueHistory,
  setIssueAssignee,
  setIssueStatus,
} from '@collector/db';
import { parseIssueId } from '@collector/domain';
import { authorizeApp } from '../../auth/authorize';
import { fail } from '../../errors';
import { authedProcedure } from '../../trpc';
import { withAssignees } from './assignees';
import { updateIssueMeta, ZUpdateIssueRequestSchema, ZUpdateIssueResponseSchema } from './update.types';

export const updateIssueRoute = authedProcedure
  .meta(updateIssueMeta)
  .input(ZUpdateIssueRequestSchema)
  .output(ZUpdateIssueResponseSchema)
  .mutation(async ({ ctx, input }) => {
    const key = parseIssueId(input.id);
    if (!key) fail('NOT_FOUND');
    // An issue of another organization's app is answered exactly like one that does not exist.
    const { orgId } = await authorizeApp(ctx, key.appKey, 'issue.triage');
    const now = ctx.clock();
    const actorId = ctx.principal.kind === 'org_token' ? null : ctx.principal.user.id;
    let row = await findIssue(ctx.db, key);
    if (!row) fail('NOT_FOUND');
    if (input.assignee !== undefined) {
      const assignee = input.assignee === null ? null : await findUserById(ctx.db, input.assignee);
      if (input.assignee !== null && (!assignee || !(await findMembershipRole(ctx.db, orgId, input.assignee)))) {
        fail('VALIDATION_FAILED', {
          details: [{ path: 'assignee', message: 'is not a member of the app’s organization' }],
        });
      }
      await setIssueAssignee(ctx.db, { ...key, userId: input.assignee, now });
      const data = { assignee: assignee && { id: assignee.id, email: assignee.email } };
      await insertIssueHistory(ctx.db, [{ ...key, type: 'assignee', actorId, data, at: now }]);
    }
    if (input.status !== undefined) {
      const changed = await setIssueStatus(ctx.db, { ...key, status: input.status, now });
      if (!changed) fail('NOT_FOUND');
      const { previous, ...updated } = changed;
      row = updated;
      if (previous !== input.status) {
        const data = { from: previous, to: input.status };
        await insertIssueHistory(ctx.db, [{ ...key, type: 'status', actorId, data, at: now }]);
      }
    }
    const [issue] = await withAssignees(ctx.db, [row]);
    return { issue: issue as NonNullable<typeof issue> };
  });
