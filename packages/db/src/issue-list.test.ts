// The issue list's order and pages (listIssues) when folded values and unfolded deltas disagree: the page is taken from
// the top issues by folded value and the few issues with deltas (issues.ts), and must equal sorting every issue by its
// exact value. A database of its own: no other file's fold may move this file's deltas.
import type { IssueSort, IssueStatus } from '@collector/domain';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { foldAll } from './counters';
import { listIssues, liveIssues, setIssueStatus } from './issues';
import { batch, errorEvent, openWritePathDatabase, someHour } from './write-path/testing';

const { db, newAccount, store } = await openWritePathDatabase('issue_list', { ownDatabase: true });
const { orgId, newApp } = await newAccount();
const apps = [await newApp(), await newApp()];

// [fingerprint, folded events, users, firstSeen and lastSeen (minutes after someHour), deltas (events, users,
// firstSeen, lastSeen) or none]. Ties on purpose (f1, f2 and f8 fold to 40 events), and deltas that lift an issue from
// the bottom to the top (f9), move it a little (f3), leave it where it was (f0) or make it older (f5's, f7's and f8's
// first seen: three of the top issues by folded first seen drop below the rest).
type Deltas = [number, number, number, number][];
const issues: Array<[string, number, number, number, number, Deltas]> = [
  ['f0', 90, 9, 0, 50, [[1, 0, 51, 52]]],
  ['f1', 40, 4, 5, 40, []],
  ['f2', 40, 5, 6, 41, []],
  ['f3', 30, 3, 7, 30, [[15, 1, 31, 33]]],
  ['f4', 20, 2, 8, 20, []],
  ['f5', 10, 1, 9, 10, [[1, 1, -30, -30]]],
  ['f6', 60, 6, 10, 60, []],
  ['f7', 50, 5, 11, 45, [[1, 0, -20, 46]]],
  ['f8', 40, 4, 12, 39, [[2, 1, -10, 39]]],
  [
    'f9',
    1,
    1,
    13,
    1,
    [
      [70, 7, 14, 70],
      [30, 2, 15, 71],
    ],
  ],
];
const minute = 60_000;
const appOf = (i: number) => apps[i % 2] as string;
await store(
  ...apps.map((appKey) =>
    batch(
      appKey,
      issues.flatMap(([fingerprint], i) =>
        appOf(i) === appKey ? [errorEvent(appKey, `evt_${fingerprint}`, { fingerprint })] : [],
      ),
    ),
  ),
);
await foldAll(db);
for (const [i, [fingerprint, events, users, first, last, deltas]] of issues.entries()) {
  await sql`update issues set event_count = ${events}, user_count = ${users},
      first_seen_at = ${someHour + first * minute}, last_seen_at = ${someHour + last * minute}
    where app_key = ${appOf(i)} and fingerprint = ${fingerprint}`.execute(db);
  for (const [deltaEvents, deltaUsers, deltaFirst, deltaLast] of deltas)
    await db
      .insertInto('issue_deltas')
      .values({
        app_key: appOf(i),
        fingerprint,
        events: deltaEvents,
        users: deltaUsers,
        first_seen: someHour + deltaFirst * minute,
        last_seen: someHour + deltaLast * minute,
        level: null,
        last_release: null,
      })
      .execute();
}
for (const fingerprint of ['f2', 'f9'])
  await setIssueStatus(db, { appKey: appOf(Number(fingerprint.slice(1))), fingerprint, status: 'resolved', now: 0 });

/** Every issue's exact values, as the fold would make them. */
const exact = issues.map(([fingerprint, events, users, first, last, deltas], i) => ({
  appKey: appOf(i),
  fingerprint,
  status: fingerprint === 'f2' || fingerprint === 'f9' ? 'resolved' : 'unresolved',
  events: events + deltas.reduce((sum, delta) => sum + delta[0], 0),
  users: users + deltas.reduce((sum, delta) => sum + delta[1], 0),
  firstSeen: someHour + Math.min(first, ...deltas.map((delta) => delta[2])) * minute,
  lastSeen: someHour + Math.max(last, ...deltas.map((delta) => delta[3])) * minute,
}));

const descending = (a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0);

/** The fingerprints in the sort's order: descending, ties by appKey, then fingerprint, descending. */
function expected(sort: IssueSort, statuses?: IssueStatus[]): string[] {
  const key = (issue: (typeof exact)[number]) => issue[sort];
  return exact
    .filter((issue) => statuses === undefined || statuses.includes(issue.status as IssueStatus))
    .sort((a, b) => key(b) - key(a) || descending(a.appKey, b.appKey) || descending(a.fingerprint, b.fingerprint))
    .map((issue) => issue.fingerprint);
}

/** Every page of the list, `limit` at a time, followed by its cursors, as the API does. */
async function walk(sort: IssueSort, limit: number, statuses?: IssueStatus[]) {
  const seen: Array<[string, number]> = [];
  let after: { sort: IssueSort; value: number; appKey: string; fingerprint: string } | undefined;
  for (let page = 0; page < 20; page++) {
    const { page: listed, hasMore, total } = await listIssues(db, { orgIds: [orgId], statuses, sort, after, limit });
    expect(total).toBe(expected(sort, statuses).length);
    const rows = await liveIssues(db, listed);
    expect(rows.map((row) => row.fingerprint)).toEqual(listed.map((issue) => issue.fingerprint));
    seen.push(...rows.map((row): [string, number] => [row.fingerprint, row.event_count]));
    const last = listed.at(-1);
    if (!hasMore || !last) break;
    after = { sort, value: last.sortValue, appKey: last.appKey, fingerprint: last.fingerprint };
  }
  return seen;
}

describe('the issue list before the ledger is folded', () => {
  it('deltas move issues as sorting by the exact values would, on every page size', async () => {
    // The ledger holds deltas of six issues, and the rows their folded values.
    const { rows } = await sql<{ n: number }>`select count(distinct (app_key, fingerprint))::int as n
      from issue_deltas`.execute(db);
    expect(rows[0]?.n).toBe(6);
    for (const sort of ['lastSeen', 'firstSeen', 'events', 'users'] as const)
      for (const statuses of [undefined, ['unresolved' as const]])
        for (const limit of [1, 2, 3, 4, 50]) {
          const pages = await walk(sort, limit, statuses);
          expect({ sort, statuses, limit, order: pages.map(([fingerprint]) => fingerprint) }).toEqual({
            sort,
            statuses,
            limit,
            order: expected(sort, statuses),
          });
          // Counts shown are exact whatever page an issue is on.
          for (const [fingerprint, events] of pages)
            expect(events).toBe(exact.find((issue) => issue.fingerprint === fingerprint)?.events);
        }
  });

  it('the order is by exact values indeed: f9 leads by events though its row counts one', () => {
    expect(expected('events')[0]).toBe('f9');
    expect(expected('firstSeen').at(-1)).toBe('f5');
  });
});
