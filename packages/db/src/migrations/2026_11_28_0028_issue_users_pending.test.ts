// Migration 0028: pending (issue, user) pairs. Its view counts each pending pair that issue_users lacks once, and its
// down moves them into issue_users and their issues' counts, so an issue's users read the same before and after; on a
// database of its own (its down drops a table the write statement writes).
import { type Migration, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { batch, errorEvent, openWritePathDatabase } from '../write-path/testing';
import { migrations } from './index';

const { db, newAccount, store } = await openWritePathDatabase('pending0028', { ownDatabase: true });
const pendingUsers = migrations['2026_11_28_0028_issue_users_pending'] as Migration;

describe('migration 0028: issue_users_pending', () => {
  it('counts a pending pair once, not when issue_users has it, and its down moves it into the issue', async () => {
    const { newApp } = await newAccount();
    const appKey = await newApp();
    await store(
      batch(appKey, [
        errorEvent(appKey, 'e1', { anonymousId: 'anon_a' }),
        errorEvent(appKey, 'e2', { anonymousId: 'anon_b', fingerprint: 'TypeError:other' }),
      ]),
    );
    // As statements that could not claim them leave them: anon_b twice, anon_a already in issue_users.
    await db
      .insertInto('issue_users_pending')
      .values(
        ['anon_b', 'anon_b', 'anon_a'].map((anonymous_id) => ({
          app_key: appKey,
          fingerprint: 'TypeError:cart',
          anonymous_id,
        })),
      )
      .execute();
    const users = async () =>
      (
        await sql<{ fingerprint: string; user_count: string }>`select fingerprint, user_count from issues_live
          where app_key = ${appKey} order by fingerprint`.execute(db)
      ).rows.map((row) => [row.fingerprint, Number(row.user_count)]);
    const expected = [
      ['TypeError:cart', 2],
      ['TypeError:other', 1],
    ];
    expect(await users()).toEqual(expected);

    await pendingUsers.down?.(db);
    expect(await users()).toEqual(expected);
    const pairs = await db
      .selectFrom('issue_users')
      .select('anonymous_id')
      .where('app_key', '=', appKey)
      .where('fingerprint', '=', 'TypeError:cart')
      .orderBy('anonymous_id')
      .execute();
    expect(pairs.map((pair) => pair.anonymous_id)).toEqual(['anon_a', 'anon_b']);

    await pendingUsers.up(db);
    expect(await users()).toEqual(expected);
    await store(batch(appKey, [errorEvent(appKey, 'e3', { anonymousId: 'anon_c' })]));
    expect((await users())[0]).toEqual(['TypeError:cart', 3]);
  });
});
