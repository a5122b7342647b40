import { setIssuesStatus } from '@collector/db';
import { parseIssueId } from '@collector/domain';
import { authorizedOrgs } from '../../auth/authorize';
import { authedProcedure } from '../../trpc';
import { updateIssuesMeta, ZUpdateIssuesRequestSchema, ZUpdateIssuesResponseSchema } from './update-many.types';

export const updateIssuesRoute = authedProcedure
  .meta(updateIssuesMeta)
  .input(ZUpdateIssuesRequestSchema)
  .output(ZUpdateIssuesResponseSchema)
  .mutation(async ({ ctx, input }) => {
    // A malformed id names no issue: skipped like another user's.
    const keys = [...new Set(input.ids)].map(parseIssueId).filter((key) => key !== null);
    const updated = await setIssuesStatus(ctx.db, {
      orgIds: (await authorizedOrgs(ctx, 'issue.triage')).map((org) => org.id),
      keys,
      status: input.status,
      now: ctx.clock(),
    });
    return { updated };
  });
