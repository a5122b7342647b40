// An issue's events by browser, OS, runtime, device, release and environment: the issue page's breakdown, and the
// tags panel's values for those keys. Counted, not read from payloads: issue_contexts (release, environment, user
// agent) and issue_tags (browser, os, runtime, device named by contexts).
import { type Db, issueEventContexts, issueTagCounts } from '@collector/db';
import { describeUserAgent, type UserAgentSummary } from '@collector/domain';

type Counts = Array<{ value: string | null; events: number }>;

export interface Breakdown {
  events: number;
  browsers: Counts;
  os: Counts;
  runtimes: Counts;
  devices: Counts;
  releases: Counts;
  environments: Counts;
}

/** The tags the breakdown reads from issue_tags (the other readers of issue_tags leave them to it). */
export const CLIENT_TAGS = ['browser', 'os', 'runtime', 'device'] as const;

/** Values of a context tag read for the breakdown: beyond these, its long tail still counts in none. */
const CONTEXT_VALUES = 1000;

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

/** Sums counts by value, most first (ties by value, "not sent" last, so the order is stable); none of zero. */
function tally(entries: Iterable<[string | null, number]>): Counts {
  const byValue = new Map<string | null, number>();
  for (const [value, events] of entries) byValue.set(value, (byValue.get(value) ?? 0) + events);
  return [...byValue.entries()]
    .filter(([, events]) => events > 0)
    .map(([value, events]) => ({ value, events }))
    .sort(
      (a, b) => b.events - a.events || (a.value === null ? 1 : b.value === null ? -1 : a.value.localeCompare(b.value)),
    );
}

export async function issueBreakdown(
  db: Db,
  issue: { appKey: string; fingerprint: string; firstSeenAt: number; lastSeenAt: number },
): Promise<Breakdown> {
  const [contexts, clientTags] = await Promise.all([
    issueEventContexts(db, issue),
    issueTagCounts(db, issue, { perKey: CONTEXT_VALUES, keys: CLIENT_TAGS }),
  ]);
  // Parsed once per distinct user agent: the rows are already grouped by it.
  const agents = contexts.map((context) => ({
    ...context,
    agent: context.userAgent === null ? null : describeAgent(context.userAgent),
  }));
  const events = agents.reduce((sum, context) => sum + context.events, 0);
  // Contexts name the client before the user agent does: an event whose contexts named its browser or OS was counted
  // without its user agent (null above), and by its browser, os, runtime and device tags. Those move out of "not
  // sent" into their values.
  const withContexts = (tag: string, fromAgents: Array<[string | null, number]>) => {
    const tagged = clientTags.filter((count) => count.key === tag);
    const taggedEvents = tagged.reduce((sum, count) => sum + count.events, 0);
    const entries: Array<[string | null, number]> = [...fromAgents, [null, -taggedEvents]];
    for (const count of tagged) entries.push([count.value, count.events]);
    return tally(entries);
  };
  return {
    events,
    browsers: withContexts(
      'browser',
      agents.map((context) => [context.agent?.browser ?? null, context.events]),
    ),
    os: withContexts(
      'os',
      agents.map((context) => [context.agent?.os ?? null, context.events]),
    ),
    runtimes: withContexts('runtime', [[null, events]]),
    devices: withContexts('device', [[null, events]]),
    releases: tally(agents.map((context) => [context.release, context.events])),
    environments: tally(agents.map((context) => [context.environment, context.events])),
  };
}

/** The breakdown's dimensions as the tags they are, and the tag key each is shown under. */
export const breakdownTags = {
  browser: 'browsers',
  os: 'os',
  runtime: 'runtimes',
  device: 'devices',
  release: 'releases',
  environment: 'environments',
} as const satisfies Record<string, Exclude<keyof Breakdown, 'events'>>;
