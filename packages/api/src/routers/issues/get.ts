import { findIssue, issueEventContexts, issueSeries, issueTagCounts, listIssueEvents } from '@collector/db';
import {
  decodeEventCursor,
  describeUserAgent,
  encodeEventCursor,
  parseIssueId,
  type UserAgentSummary,
} from '@collector/domain';
import { authorizeApp } from '../../auth/authorize';
import { fail } from '../../errors';
import { authedProcedure } from '../../trpc';
import { withAssignees } from './assignees';
import { getIssueMeta, ZGetIssueRequestSchema, ZGetIssueResponseSchema } from './get.types';

type Counts = Array<{ value: string | null; events: number }>;

/** Values of a context tag read for the breakdown: beyond these, its long tail still counts in none. */
const BREAKDOWN_VALUES = 1000;

// An issue's breakdown counts every user agent its events ever had (issue_contexts): thousands for a large issue, and
// bowser takes ~20 us each. The same agents recur across issues and reads, so each is parsed once per process; the
// cache is emptied when full rather than kept in order, which is enough for what it holds.
const parsedAgents = new Map<string, UserAgentSummary>();
function describeAgent(userAgent: string): UserAgentSummary {
  let summary = parsedAgents.get(userAgent);
  if (!summary) {
    if (parsedAgents.size >= 20_000) parsedAgents.clear();
    summary = describeUserAgent(userAgent);
    parsedAgents.set(userAgent, summary);
  }
  return summary;
}

/** Sums counts by value, most first (ties by value, "not sent" last, so the order is stable). */
function tally(entries: Iterable<[string | null, number]>): Counts {
  const byValue = new Map<string | null, number>();
  for (const [value, events] of entries) byValue.set(value, (byValue.get(value) ?? 0) + events);
  return [...byValue.entries()]
    .map(([value, events]) => ({ value, events }))
    .sort(
      (a, b) => b.events - a.events || (a.value === null ? 1 : b.value === null ? -1 : a.value.localeCompare(b.value)),
    );
}

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
    const [page, series, contexts, clientTags] = await Promise.all([
      listIssueEvents(ctx.db, { ...seen, limit: input.limit, after }),
      issueSeries(ctx.db, { ...key, now: ctx.clock() }),
      issueEventContexts(ctx.db, seen),
      issueTagCounts(ctx.db, key, { perKey: BREAKDOWN_VALUES, keys: ['browser', 'os', 'runtime', 'device'] }),
    ]);
    const last = page.events.at(-1);
    const nextCursor =
      page.hasMore && last ? encodeEventCursor({ timestamp: last.timestamp, eventId: last.eventId }) : null;
    // Parsed once per distinct user agent: the rows are already grouped by it.
    const agents = contexts.map((context) => ({
      ...context,
      agent: context.userAgent === null ? null : describeAgent(context.userAgent),
    }));
    const events = agents.reduce((sum, context) => sum + context.events, 0);
    // Contexts name the client before the user agent does: an event whose contexts named its browser or OS was counted
    // without its user agent (null above), and by its browser, os, runtime and device tags. Those move out of "not
    // sent" into their values.
    const fromContexts = (tag: string, fromAgents: Array<[string | null, number]>) => {
      const tagged = clientTags.filter((count) => count.key === tag);
      const taggedEvents = tagged.reduce((sum, count) => sum + count.events, 0);
      const entries: Array<[string | null, number]> = [...fromAgents, [null, -taggedEvents]];
      for (const count of tagged) entries.push([count.value, count.events]);
      return tally(entries).filter((count) => count.events > 0);
    };
    const breakdown = {
      events,
      browsers: fromContexts(
        'browser',
        agents.map((context) => [context.agent?.browser ?? null, context.events]),
      ),
      os: fromContexts(
        'os',
        agents.map((context) => [context.agent?.os ?? null, context.events]),
      ),
      runtimes: fromContexts('runtime', [[null, events]]),
      devices: fromContexts('device', [[null, events]]),
      releases: tally(agents.map((context) => [context.release, context.events])),
      environments: tally(agents.map((context) => [context.environment, context.events])),
    };
    const [issue] = await withAssignees(ctx.db, [row]);
    return { issue: { ...(issue as NonNullable<typeof issue>), series }, events: page.events, nextCursor, breakdown };
  });
