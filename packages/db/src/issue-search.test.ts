// The search terms' SQL (issue-search.ts) through listIssues, against a real database (embedded, or PostgreSQL with
// TEST_DATABASE_URL). Tag and handled facets are written here as rows of issue_facets, as the write path keeps them.
import { parseSearch } from '@collector/domain';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { likePattern } from './issue-search';
import { setIssueAssignee } from './issue-work';
import { listIssues, liveIssues, setIssueStatus } from './issues';
import { batch, errorEvent, openWritePathDatabase, someHour } from './write-path/testing';

const { db, newAccount, store } = await openWritePathDatabase('search');
const { userId, orgId, newApp } = await newAccount();
const colleague = await newAccount({ orgId });
const colleagueEmail = `${colleague.userId}@example.com`;
const appKey = await newApp();

// a: error, release 1.0 in production, unhandled, browser Chrome 120, customer_tier gold; assigned to the caller.
// b: warning, release 1.1 in staging, handled, browser Firefox 121, url with 100%_off; resolved, assigned to colleague.
// c: fatal, release 2.0-beta, no environment, handled and unhandled, browser "Mobile Safari", tag named level; ignored.
// d: info, nothing else; unassigned.
await store(
  batch(appKey, [
    errorEvent(appKey, 'evt_a', { fingerprint: 'js:a', level: 'error', release: '1.0', environment: 'production' }),
    errorEvent(appKey, 'evt_b', { fingerprint: 'js:b', level: 'warning', release: '1.1', environment: 'staging' }),
    errorEvent(appKey, 'evt_c', { fingerprint: 'js:c', level: 'fatal', release: '2.0-beta', message: 'cart failed' }),
    errorEvent(appKey, 'evt_d', { fingerprint: 'js:d', level: 'info', message: 'Cart: total missing' }),
  ]),
);
const facets: [string, string, string][] = [
  ['js:a', 'handled', 'no'],
  ['js:a', 'tag:browser', 'Chrome 120'],
  ['js:a', 'tag:customer_tier', 'gold'],
  ['js:b', 'handled', 'yes'],
  ['js:b', 'tag:browser', 'Firefox 121'],
  ['js:b', 'tag:url', 'https://shop.example/deals/100%_off'],
  ['js:c', 'handled', 'yes'],
  ['js:c', 'handled', 'no'],
  ['js:c', 'tag:browser', 'Mobile Safari'],
  ['js:c', 'tag:level', 'high'],
  ['js:c', 'tag:url', 'https://shop.example/deals/100x off'],
];
// The write path may come to write some of these itself: a row it wrote already is the same row.
await sql`
  insert into issue_facets (app_key, facet, value, fingerprint)
  select ${appKey}, f.facet, f.value, f.fingerprint from jsonb_to_recordset(${JSON.stringify(
    facets.map(([fingerprint, facet, value]) => ({ fingerprint, facet, value })),
  )}::jsonb) f(fingerprint text, facet text, value text)
  on conflict do nothing`.execute(db);
await setIssueAssignee(db, { appKey, fingerprint: 'js:a', userId, now: someHour });
await setIssueAssignee(db, { appKey, fingerprint: 'js:b', userId: colleague.userId, now: someHour });
await setIssueStatus(db, { appKey, fingerprint: 'js:b', status: 'resolved', now: someHour });
await setIssueStatus(db, { appKey, fingerprint: 'js:c', status: 'ignored', now: someHour });

/** The fingerprints of the issues that q finds, sorted. */
async function found(q: string, me: string | undefined = userId): Promise<string[]> {
  const parsed = parseSearch(q);
  if (!parsed.ok) throw new Error(parsed.message);
  const { page, total } = await listIssues(db, {
    orgIds: [orgId],
    appKey,
    terms: parsed.terms,
    me,
    sort: 'lastSeen',
    limit: 50,
  });
  expect(total).toBe(page.length);
  return page.map((issue) => issue.fingerprint).sort();
}

describe('likePattern', () => {
  it('escapes LIKE’s own characters and joins the pieces with %', () => {
    expect(likePattern(['100%_off', ''])).toBe('100\\%\\_off%');
    expect(likePattern(['a\\b', 'c'])).toBe('a\\\\b%c');
    expect(likePattern(['', ''])).toBe('%');
  });
});

describe('search terms in listIssues', () => {
  it('matches every issue with no terms', async () => {
    expect(await found('')).toEqual(['js:a', 'js:b', 'js:c', 'js:d']);
  });

  it('is: statuses, archived as ignored, and assignment', async () => {
    expect(await found('is:unresolved')).toEqual(['js:a', 'js:d']);
    expect(await found('is:resolved')).toEqual(['js:b']);
    expect(await found('is:archived')).toEqual(['js:c']);
    expect(await found('is:assigned')).toEqual(['js:a', 'js:b']);
    expect(await found('is:unassigned')).toEqual(['js:c', 'js:d']);
    expect(await found('is:unresolved is:assigned')).toEqual(['js:a']);
    expect(await found('is:[resolved,unassigned]')).toEqual(['js:b', 'js:c', 'js:d']);
    expect(await found('!is:unresolved')).toEqual(['js:b', 'js:c']);
  });

  it('assigned: me, none and a member by e-mail', async () => {
    expect(await found('assigned:me')).toEqual(['js:a']);
    expect(await found('assigned:me', colleague.userId)).toEqual(['js:b']);
    expect(await found('assigned:none')).toEqual(['js:c', 'js:d']);
    expect(await found(`assigned:${colleagueEmail.toUpperCase()}`)).toEqual(['js:b']);
    expect(await found('assigned:nobody@example.com')).toEqual([]);
    expect(await found('assigned:[me,none]')).toEqual(['js:a', 'js:c', 'js:d']);
    expect(await found('!assigned:me')).toEqual(['js:b', 'js:c', 'js:d']);
  });

  it('level:', async () => {
    expect(await found('level:fatal')).toEqual(['js:c']);
    expect(await found('level:[error,warning]')).toEqual(['js:a', 'js:b']);
    expect(await found('!level:error')).toEqual(['js:b', 'js:c', 'js:d']);
  });

  it('release: and environment:, exact, listed, wildcard and negated', async () => {
    expect(await found('release:1.1')).toEqual(['js:b']);
    expect(await found('release:1.*')).toEqual(['js:a', 'js:b']);
    expect(await found('release:*beta')).toEqual(['js:c']);
    expect(await found('release:[1.0,2.*]')).toEqual(['js:a', 'js:c']);
    expect(await found('environment:production')).toEqual(['js:a']);
    expect(await found('!environment:production')).toEqual(['js:b', 'js:c', 'js:d']);
    expect(await found('has:environment')).toEqual(['js:a', 'js:b']);
    expect(await found('!has:release')).toEqual(['js:d']);
  });

  it('handled:, error.handled: and error.unhandled:', async () => {
    expect(await found('handled:no')).toEqual(['js:a', 'js:c']);
    expect(await found('error.unhandled:true')).toEqual(['js:a', 'js:c']);
    expect(await found('handled:yes')).toEqual(['js:b', 'js:c']);
    expect(await found('error.handled:true')).toEqual(['js:b', 'js:c']);
    expect(await found('!error.unhandled:true')).toEqual(['js:b', 'js:d']);
  });

  it('tags: key:value, quoted, listed, wildcards, has:, negation and tags[key]', async () => {
    expect(await found('browser:"Chrome 120"')).toEqual(['js:a']);
    expect(await found('browser:Chrome')).toEqual([]);
    expect(await found('browser:chrome*')).toEqual([]);
    expect(await found('browser:Chrome*')).toEqual(['js:a']);
    expect(await found('browser:*i*')).toEqual(['js:b', 'js:c']);
    expect(await found('browser:["Mobile Safari","Firefox 121"]')).toEqual(['js:b', 'js:c']);
    expect(await found('!browser:"Chrome 120"')).toEqual(['js:b', 'js:c', 'js:d']);
    expect(await found('has:customer_tier')).toEqual(['js:a']);
    expect(await found('!has:browser')).toEqual(['js:d']);
    expect(await found('browser:*')).toEqual(['js:a', 'js:b', 'js:c']);
    expect(await found('tags[level]:high')).toEqual(['js:c']);
  });

  it('takes %, _ and \\ in a wildcard value as themselves', async () => {
    expect(await found('url:*100%_off')).toEqual(['js:b']);
    expect(await found('url:"*100x off"')).toEqual(['js:c']);
    expect(await found('url:*100_*')).toEqual([]);
    expect(await found('url:*deals/100*')).toEqual(['js:b', 'js:c']);
  });

  it('free text as a case-insensitive substring, beside terms', async () => {
    expect(await found('CART')).toEqual(['js:c', 'js:d']);
    expect(await found('cart level:info')).toEqual(['js:d']);
    expect(await found('"cart: total"')).toEqual(['js:d']);
    expect(await found('cart failed')).toEqual(['js:c']);
  });

  it('ANDs terms with each other and with the list’s own filters', async () => {
    expect(await found('is:unresolved browser:Chrome* handled:no level:error release:1.0 !has:url')).toEqual(['js:a']);
    const parsed = parseSearch('handled:yes');
    if (!parsed.ok) throw new Error(parsed.message);
    const { page } = await listIssues(db, {
      orgIds: [orgId],
      appKey,
      statuses: ['ignored'],
      terms: parsed.terms,
      sort: 'lastSeen',
      limit: 50,
    });
    expect(page.map((issue) => issue.fingerprint)).toEqual(['js:c']);
  });
});

describe('facet terms before the ledger is folded', () => {
  it('sort by the exact counts, unfolded deltas included, page by page', async () => {
    await store(
      batch(
        appKey,
        ['1', '2', '3'].map((n) =>
          errorEvent(appKey, `evt_b${n}`, {
            fingerprint: 'js:b',
            level: 'warning',
            release: '1.1',
            environment: 'staging',
          }),
        ),
      ),
    );
    const parsed = parseSearch('release:1.*');
    if (!parsed.ok) throw new Error(parsed.message);
    const page = async (after?: { value: number; appKey: string; fingerprint: string }) => {
      const { page, hasMore, total } = await listIssues(db, {
        orgIds: [orgId],
        appKey,
        terms: parsed.terms,
        sort: 'events',
        after: after && { sort: 'events', ...after },
        limit: 1,
      });
      expect(total).toBe(2);
      const rows = await liveIssues(db, page);
      return { rows: rows.map((row) => [row.fingerprint, row.event_count]), hasMore, last: page.at(-1) };
    };
    // Nothing is folded in this file: js:b's row counts none of its four events, the ledger's deltas all of them.
    const first = await page();
    expect(first.rows).toEqual([['js:b', 4]]);
    expect(first.hasMore).toBe(true);
    const last = first.last as { appKey: string; fingerprint: string; sortValue: number };
    const second = await page({ value: last.sortValue, appKey: last.appKey, fingerprint: last.fingerprint });
    expect(second.rows).toEqual([['js:a', 1]]);
    expect(second.hasMore).toBe(false);
  });
});
