// Triage: the states an issue can be put in, the orders the issue list can be read in, and the bounds of both.
// Constants only, no zod: the dashboard reads them without bundling the validation library.

export const issueStatuses = ['unresolved', 'resolved', 'ignored'] as const;
export type IssueStatus = (typeof issueStatuses)[number];

/** Sorts of the issue list, all descending: most recently seen, most recently first seen, most events, most users. */
export const issueSorts = ['lastSeen', 'firstSeen', 'events', 'users'] as const;
export type IssueSort = (typeof issueSorts)[number];

/** An issue page's chart: events per UTC day over this many days, today included. */
export const issueSeriesDays = 30;

/** The issue list's sparkline: events per UTC day over this many days per issue, today included. */
export const issueListSeriesDays = 14;

/** Issues one bulk status change may name. */
export const bulkStatusMaxIds = 100;

/** Longest search text for the issue list. */
export const issueSearchMaxChars = 200;

const DAY = 86_400_000;

/** The UTC days an issue's series of `days` covers at `now`, oldest first, as ms at each day's start. */
export function seriesDayStarts(now: number, days = issueSeriesDays): number[] {
  const today = Math.floor(now / DAY);
  return Array.from({ length: days }, (_, i) => (today - days + 1 + i) * DAY);
}

/** Counts per day (keyed by day number, ms / 86,400,000) spread over every day of the series, missing days at 0. */
export function dailySeries(
  counts: ReadonlyArray<{ day: number; events: number }>,
  now: number,
  days = issueSeriesDays,
): Array<{ start: number; events: number }> {
  const byDay = new Map(counts.map((row) => [row.day, row.events]));
  return seriesDayStarts(now, days).map((start) => ({ start, events: byDay.get(start / DAY) ?? 0 }));
}
