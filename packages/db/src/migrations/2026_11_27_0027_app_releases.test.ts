// Migration 0027: each app's releases counted (app_releases). Filled from what is stored, it must give what the write
// statement counts: on a database of its own (its down drops a table every statement writes), events are stored with
// the counter in place, and its rows are compared with those the migration's down and up make again from the stored
// events, issues and breakdown counts.
import { type Migration, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { foldCounters } from '../counters';
import { batch, errorEvent, openWritePathDatabase, someHour } from '../write-path/testing';
import { migrations } from './index';

const { db, newAccount, store } = await openWritePathDatabase('releases0027', { ownDatabase: true });
const appReleases = migrations['2026_11_27_0027_app_releases'] as Migration;

const rowsOf = async (appKey: string) =>
  (
    await sql<Record<string, unknown>>`select * from app_releases where app_key = ${appKey} order by release`.execute(
      db,
    )
  ).rows;

describe('migration 0027: app_releases', () => {
  it('fills each release of an app from its stored events, as the write statement counts them', async () => {
    const { newApp } = await newAccount();
    const appKey = await newApp();
    const other = await newApp();
    const minute = 60_000;
    await store(
      batch(appKey, [
        errorEvent(appKey, 'a1', { fingerprint: 'js:a', timestamp: someHour, release: 'shop@1' }),
        errorEvent(appKey, 'a2', { fingerprint: 'js:a', timestamp: someHour + minute, release: 'shop@2' }),
        errorEvent(appKey, 'b1', { fingerprint: 'js:b', timestamp: someHour + 2 * minute, release: 'shop@1' }),
        errorEvent(appKey, 'n1', { fingerprint: 'js:b', timestamp: someHour + 3 * minute }),
      ]),
      batch(other, [errorEvent(other, 'o1', { fingerprint: 'js:a', timestamp: someHour, release: 'shop@1' })]),
    );
    await foldCounters(db, { wait: true });
    // Left unfolded: the migration reads the breakdown's view, folded and not.
    await store(
      batch(appKey, [
        errorEvent(appKey, 'a3', { fingerprint: 'js:a', timestamp: someHour + 10 * minute, release: 'shop@2' }),
        errorEvent(appKey, 'c1', { fingerprint: 'js:c', timestamp: someHour + 4 * minute, release: 'shop@2' }),
      ]),
    );
    const counted = await rowsOf(appKey);
    expect(counted).toEqual([
      {
        app_key: appKey,
        release: 'shop@1',
        events: 2,
        new_issues: 2,
        first_seen: someHour,
        last_seen: someHour + 2 * minute,
      },
      {
        app_key: appKey,
        release: 'shop@2',
        events: 3,
        new_issues: 1,
        first_seen: someHour + minute,
        last_seen: someHour + 10 * minute,
      },
    ]);

    await appReleases.down?.(db);
    const left = await sql`select from pg_class where relname like 'app_releases%'`.execute(db);
    expect(left.rows).toEqual([]);
    await appReleases.up(db);
    expect(await rowsOf(appKey)).toEqual(counted);
    expect(await rowsOf(other)).toMatchObject([{ release: 'shop@1', events: 1, new_issues: 1, first_seen: someHour }]);
    // And the write statement goes on counting into it.
    await store(
      batch(appKey, [errorEvent(appKey, 'a4', { fingerprint: 'js:a', timestamp: someHour, release: 'shop@3' })]),
    );
    expect(await rowsOf(appKey)).toContainEqual({
      app_key: appKey,
      release: 'shop@3',
      events: 1,
      new_issues: 0,
      first_seen: someHour,
      last_seen: someHour,
    });
  });
});
