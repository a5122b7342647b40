import { insertIssueHistory, setIssuesStatus } from '@collector/db';
import { parseIssueId } from '@collector/domain';
import { authorizedOrgs } from '../../auth/authorize';
import { authedProcedure } from '../../trpc';
import { updateIssuesMeta, ZUpdateIssuesRequestSchema, ZUpdateIssuesResponseSchema } from './update-many.types';

export const updateIssuesRoute = authedProcedure
  .meta(updateIssuesMeta)
  .input(ZUpdateIssuesRequestSchema)
  .output(ZUpdateIssuesResponseSchema)
  .mutation(async ({ ctx, input }) => {
    // A malformed id names no issue: skipped like another organization's.
    const keys = [...new Set(input.ids)].map(parseIssueId).filter((key) => key !== null);
    const now = ctx.clock();
    const updated = await setIssuesStatus(ctx.db, {
      orgIds: (await authorizedOrgs(ctx, 'issue.triage')).map((org) => org.id),
      keys,
      status: input.status,
      now,
    });
    const actorId = ctx.principal.kind === 'org_token' ? null : ctx.principal.user.id;
    await insertIssueHistory(
      ctx.db,
      updated
        .filter((issue) => issue.previous !== input.status)
        .map((issue) => ({
          appKey: issue.appKey,
          fingerprint: issue.fingerprint,
          type: 'status' as const,
          actorId,
          data: { from: issue.previous, to: input.status },
          at: now,
        })),
    );
    return { updated: updated.length };
  });
