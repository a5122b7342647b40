// distinct-users.ts against a real database: distinct anonymous ids per issue, per app and per organization, exact when
// one id is seen in several apps (made by several members), in several statements and twice in one.
import { type Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { foldCounters } from '../counters';
import { storePreparedBatches } from '../ingest';
import type { Database } from '../schema';
import { type Batch, prepareBatch } from './batch';
import { issueUserClaims } from './distinct-users';
import { batch, errorEvent, openWritePathDatabase } from './testing';

const { db, newAccount, store } = await openWritePathDatabase('users');

describe('write path: distinct users', () => {
  it('counts an id seen in several apps once for the organization, once in each app, and remembers in how many apps', async () => {
    const { orgId, newApp } = await newAccount();
    // The second app made by another member of the organization: the count is the organization's, not its makers'.
    const colleague = await newAccount({ orgId });
    const [shop, blog] = [await newApp(), await colleague.newApp()];
    // One statement brings anon_both to both apps at once; later ones bring it again and add one user per app.
    await store(
      batch(shop, [
        errorEvent(shop, 'evt_1', { anonymousId: 'anon_both' }),
        errorEvent(shop, 'evt_2', { anonymousId: 'anon_both' }),
      ]),
      batch(blog, [errorEvent(blog, 'evt_1', { anonymousId: 'anon_both' })]),
    );
    await store(
      batch(shop, [
        errorEvent(shop, 'evt_3', { anonymousId: 'anon_shop' }),
        errorEvent(shop, 'evt_4', { anonymousId: 'anon_both' }),
      ]),
    );
    await store(batch(blog, [errorEvent(blog, 'evt_2', { anonymousId: 'anon_blog' }), errorEvent(blog, 'evt_3')]));

    const appUsers = await db
      .selectFrom('app_totals')
      .select(['app_key', 'users'])
      .where('app_key', 'in', [shop, blog])
      .execute();
    expect(Object.fromEntries(appUsers.map((row) => [row.app_key, row.users]))).toEqual({ [shop]: 2, [blog]: 2 });
    const org = await db.selectFrom('org_totals').select('users').where('org_id', '=', orgId).executeTakeFirstOrThrow();
    expect(org.users).toBe(3);
    const orgUsers = await db
      .selectFrom('org_users')
      .select(['anonymous_id', 'apps'])
      .where('org_id', '=', orgId)
      .orderBy('anonymous_id')
      .execute();
    expect(orgUsers).toEqual([
      { anonymous_id: 'anon_blog', apps: 1 },
      { anonymous_id: 'anon_both', apps: 2 },
      { anonymous_id: 'anon_shop', apps: 1 },
    ]);
    // The counters equal counting the stored events.
    const counted = await db
      .selectFrom('events')
      .select((eb) => eb.fn.count<number>('anonymous_id').distinct().as('users'))
      .where('app_key', 'in', [shop, blog])
      .executeTakeFirstOrThrow();
    expect(Number(counted.users)).toBe(org.users);
  });

  it("keeps one organization's ids apart from another's", async () => {
    const first = await newAccount();
    const second = await newAccount();
    const [a, b] = [await first.newApp(), await second.newApp()];
    await store(
      batch(a, [errorEvent(a, 'evt_1', { anonymousId: 'anon_same' })]),
      batch(b, [errorEvent(b, 'evt_1', { anonymousId: 'anon_same' })]),
    );
    const orgs = await db
      .selectFrom('org_totals')
      .select(['org_id', 'users'])
      .where('org_id', 'in', [first.orgId, second.orgId])
      .execute();
    expect(orgs.map((row) => row.users)).toEqual([1, 1]);
  });

  it('records each (issue, user) pair once', async () => {
    const { newApp } = await newAccount();
    const appKey = await newApp();
    await store(
      batch(appKey, [
        errorEvent(appKey, 'evt_1', { anonymousId: 'anon_a' }),
        errorEvent(appKey, 'evt_2', { anonymousId: 'anon_a', fingerprint: 'TypeError:b' }),
      ]),
    );
    await store(batch(appKey, [errorEvent(appKey, 'evt_3', { anonymousId: 'anon_a' })]));
    const pairs = await db
      .selectFrom('issue_users')
      .select(['fingerprint', 'anonymous_id'])
      .where('app_key', '=', appKey)
      .orderBy('fingerprint')
      .execute();
    expect(pairs).toEqual([
      { fingerprint: 'TypeError:b', anonymous_id: 'anon_a' },
      { fingerprint: 'TypeError:cart', anonymous_id: 'anon_a' },
    ]);
  });

  describe('a user new to an issue, brought by two statements at once', () => {
    // The issue and the user are known to the app before: then neither statement has anything else to lock (a new
    // issue or a user new to the app still locks its row, by design).
    async function knownIssueAndUser() {
      const { newApp } = await newAccount();
      const appKey = await newApp();
      await store(
        batch(appKey, [
          errorEvent(appKey, 'known_1', { anonymousId: 'anon_old' }),
          errorEvent(appKey, 'known_2', { anonymousId: 'anon_new', fingerprint: 'TypeError:other' }),
        ]),
      );
      return appKey;
    }
    const storeOn = (on: Kysely<Database>, ...batches: Batch[]) => storePreparedBatches(on, batches.map(prepareBatch));
    const users = async (appKey: string) =>
      Number(
        (
          await db
            .selectFrom('issues_live')
            .select('user_count')
            .where('app_key', '=', appKey)
            .where('fingerprint', '=', 'TypeError:cart')
            .executeTakeFirstOrThrow()
        ).user_count,
      );
    const pending = async (appKey: string) =>
      (await db.selectFrom('issue_users_pending').select('anonymous_id').where('app_key', '=', appKey).execute())
        .length;

    for (const outcome of ['commits', 'rolls back'] as const)
      it(`neither waits for the other, and the user is counted once (the first ${outcome})`, async () => {
        const appKey = await knownIssueAndUser();
        const rollback = new Error('rolled back');
        await db
          .transaction()
          .execute(async (first) => {
            await storeOn(first, batch(appKey, [errorEvent(appKey, 'first', { anonymousId: 'anon_new' })]));
            // The second statement, on another connection, while the first has not committed: it would wait for that
            // commit (here: forever, the lock timeout ends it) if it inserted the pair the first one claimed.
            await db.transaction().execute(async (second) => {
              await sql`set local lock_timeout = '2s'`.execute(second);
              await storeOn(second, batch(appKey, [errorEvent(appKey, 'second', { anonymousId: 'anon_new' })]));
            });
            expect(await pending(appKey)).toBe(1);
            expect(await users(appKey)).toBe(2);
            if (outcome === 'rolls back') throw rollback;
          })
          .catch((error: unknown) => {
            if (error !== rollback) throw error;
          });
        expect(await users(appKey)).toBe(2);
        await foldCounters(db, { wait: true });
        expect(await pending(appKey)).toBe(0);
        expect(await users(appKey)).toBe(2);
        const folded = await db
          .selectFrom('issues')
          .select('user_count')
          .where('app_key', '=', appKey)
          .where('fingerprint', '=', 'TypeError:cart')
          .executeTakeFirstOrThrow();
        expect(Number(folded.user_count)).toBe(2);
        const pairs = await db
          .selectFrom('issue_users')
          .select('anonymous_id')
          .where('app_key', '=', appKey)
          .where('fingerprint', '=', 'TypeError:cart')
          .orderBy('anonymous_id')
          .execute();
        expect(pairs.map((pair) => pair.anonymous_id)).toEqual(['anon_new', 'anon_old']);
      });

    it('folds a pending list longer than one round takes, each pair once', async () => {
      const appKey = await knownIssueAndUser();
      const count = 2500;
      await db
        .insertInto('issue_users_pending')
        .values(
          Array.from({ length: count }, (_, i) => ({
            app_key: appKey,
            fingerprint: 'TypeError:cart',
            anonymous_id: `anon_p${i % (count - 100)}`,
          })),
        )
        .execute();
      // 2,400 distinct ids, 100 of them twice, besides anon_old.
      expect(await users(appKey)).toBe(count - 100 + 1);
      await foldCounters(db, { wait: true });
      expect(await pending(appKey)).toBe(0);
      expect(await users(appKey)).toBe(count - 100 + 1);
    });

    it("shares PostgreSQL's lock table among the statements run at once, a statement's events at most", () => {
      expect([1, 2, 4, 8, 16, 100, 1024].map(issueUserClaims)).toEqual([2000, 2000, 1024, 512, 256, 40, 4]);
    });

    it('claims at most the pairs a statement is given, and counts the rest from the pending list', async () => {
      const { newApp } = await newAccount();
      const appKey = await newApp();
      const count = 30;
      const events = Array.from({ length: count }, (_, i) =>
        errorEvent(appKey, `many_${i}`, { anonymousId: `anon_${i}` }),
      );
      await storePreparedBatches(db, [prepareBatch(batch(appKey, events))], { issueUserClaims: 20 });
      expect(await pending(appKey)).toBe(10);
      expect(await users(appKey)).toBe(count);
      await foldCounters(db, { wait: true });
      expect(await pending(appKey)).toBe(0);
      expect(await users(appKey)).toBe(count);
    });
  });
});
