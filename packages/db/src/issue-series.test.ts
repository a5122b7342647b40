// A page of the list by key (issueListPage): the rows with exact counts in the keys' order, assignees, unhandled flags,
// and the sparklines: each issue's events per day over the last two weeks, exact whether its days are folded, still
// deltas, or both, every day present, and nothing of days or issues outside the page.
import { DAY } from '@collector/domain';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { foldCounters } from './counters';
import { setIssueAssignee } from './issue-work';
import { issueListPage } from './issues';
import { batch, errorEvent, openWritePathDatabase } from './write-path/testing';

const { db, newAccount, store } = await openWritePathDatabase('series');

describe('issueListPage', () => {
  it('sums folded and unfolded days per issue, fills the other days with zero, and reads only the page', async () => {
    const { userId, newApp } = await newAccount();
    const appKey = await newApp();
    const now = Date.now();
    const today = Math.floor(now / DAY) * DAY;
    const at = (daysAgo: number, id: string, fingerprint: string) =>
      errorEvent(appKey, id, { fingerprint, timestamp: today - daysAgo * DAY + 3_600_000 });
    // a: 2 events 3 days ago and 1 today, folded; then 1 more today and 1 twelve days ago, unfolded.
    // b: 1 event 20 days ago (before the sparkline's 14 days) and 2 five days ago. c: not on the page.
    await store(
      batch(appKey, [
        at(3, 'a1', 'js:a'),
        at(3, 'a2', 'js:a'),
        at(0, 'a3', 'js:a'),
        at(20, 'b1', 'js:b'),
        at(5, 'b2', 'js:b'),
        at(5, 'b3', 'js:b'),
        at(0, 'c1', 'js:c'),
      ]),
    );
    await foldCounters(db, { wait: true });
    await store(batch(appKey, [at(0, 'a4', 'js:a'), at(12, 'a5', 'js:a')]));
    const none = { appKey, fingerprint: 'js:none' };
    await setIssueAssignee(db, { appKey, fingerprint: 'js:b', userId, now });
    await sql`insert into issue_facets (app_key, facet, value, fingerprint) values (${appKey}, 'handled', 'no', 'js:a')
      on conflict do nothing`.execute(db);

    const page = await issueListPage(db, [{ appKey, fingerprint: 'js:b' }, none, { appKey, fingerprint: 'js:a' }], now);
    // The rows in the keys' order, counts exact with a's deltas unfolded; the key with no issue left out.
    expect(page.rows.map((row) => [row.fingerprint, row.event_count])).toEqual([
      ['js:b', 3],
      ['js:a', 5],
    ]);
    expect(page.assignees).toEqual(new Map([[`${appKey}\u0000js:b`, { id: userId, email: `${userId}@example.com` }]]));
    expect(page.unhandled).toEqual(new Set([`${appKey}\u0000js:a`]));
    const series = page.series;
    expect([...series.keys()]).toEqual([`${appKey}\u0000js:b`, `${appKey}\u0000js:none`, `${appKey}\u0000js:a`]);
    const events = (fingerprint: string) => series.get(`${appKey}\u0000${fingerprint}`)?.map((day) => day.events);
    const days = (counts: Record<number, number>) => Array.from({ length: 14 }, (_, i) => counts[13 - i] ?? 0);
    expect(events('js:a')).toEqual(days({ 12: 1, 3: 2, 0: 2 }));
    expect(events('js:b')).toEqual(days({ 5: 2 }));
    expect(events('js:none')).toEqual(days({}));
    expect(series.get(`${appKey}\u0000js:a`)?.map((day) => day.start)).toEqual(
      Array.from({ length: 14 }, (_, i) => today - (13 - i) * DAY),
    );

    // The same after everything is folded.
    await foldCounters(db, { wait: true });
    const folded = (await issueListPage(db, [{ appKey, fingerprint: 'js:a' }], now)).series;
    expect(folded.get(`${appKey}\u0000js:a`)?.map((day) => day.events)).toEqual(days({ 12: 1, 3: 2, 0: 2 }));
    expect(await issueListPage(db, [], now)).toEqual({
      rows: [],
      assignees: new Map(),
      unhandled: new Set(),
      series: new Map(),
    });
  });
});
