import { findIssue, issueSeries, listIssueEvents } from '@collector/db';
import { decodeEventCursor, encodeEventCursor, parseIssueId } from '@collector/domain';
import { authorizeApp } from '../../auth/authorize';
import { fail } from '../../errors';
import { authedProcedure } from '../../trpc';
import { withAssignees } from './assignees';
import { issueBreakdown } from './breakdown';
import { getIssueMeta, ZGetIssueRequestSchema, ZGetIssueResponseSchema } from './get.types';

export const getIssueRoute = authedProcedure
  .meta(getIssueMeta)
  .input(ZGetIssueRequestSchema)
  .output(ZGetIssueResponseSchema)
  .query(async ({ ctx, input }) => {
    const after = input.cursor === undefined ? undefined : decodeEventCursor(input.cursor);
    if (after === null)
      fail('VALIDATION_FAILED', { details: [{ path: 'cursor', message: 'is not a cursor this service issued' }] });
    const key = parseIssueId(input.id);
    if (!key) fail('NOT_FOUND');
    // An issue of another organization's app is answered exactly like one that does not exist.
    await authorizeApp(ctx, key.appKey, 'app.read');
    const row = await findIssue(ctx.db, key);
    if (!row) fail('NOT_FOUND');
    // Its first and last seen times bound the days its events are read from.
    const seen = { ...key, firstSeenAt: row.first_seen_at, lastSeenAt: row.last_seen_at };
    const [page, series, breakdown, [issue]] = await Promise.all([
      listIssueEvents(ctx.db, { ...seen, limit: input.limit, after }),
      issueSeries(ctx.db, { ...key, now: ctx.clock() }),
      issueBreakdown(ctx.db, seen),
      withAssignees(ctx.db, [row]),
    ]);
    const last = page.events.at(-1);
    const nextCursor =
      page.hasMore && last ? encodeEventCursor({ timestamp: last.timestamp, eventId: last.eventId }) : null;
    // A map uploaded after an event was stored applies now, through the same workers and time limit (not regrouped).
    const events = await ctx.ingestion.present(key.appKey, page.events);
    return { issue: { ...(issue as NonNullable<typeof issue>), series }, events, nextCursor, breakdown };
  });
