// Leases from a bucket in the database: what every process together may take is what one bucket holds.
import { afterAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../test/database';
import { openDatabase } from './connection';
import { leaseTokens } from './rate-leases';

const database = await openDatabase({ url: await testDatabaseUrl() });
afterAll(() => database.close());
const policy = { ratePerSecond: 100, burst: 500 };
const bucket = () => `app:test_${Math.random().toString(36).slice(2)}`;

describe('leaseTokens', () => {
  it('starts full, gives what it has and no more, and refills with time up to the burst', async () => {
    const name = bucket();
    expect(await leaseTokens(database.db, name, 300, policy, 1_000)).toEqual({ granted: 300, available: 500 });
    expect(await leaseTokens(database.db, name, 300, policy, 1_000)).toEqual({ granted: 200, available: 200 });
    expect(await leaseTokens(database.db, name, 300, policy, 1_000)).toEqual({ granted: 0, available: 0 });
    // 1.5 s later: 150 tokens.
    expect(await leaseTokens(database.db, name, 300, policy, 2_500)).toEqual({ granted: 150, available: 150 });
    // A clock behind the bucket's (another machine's) refills nothing.
    expect(await leaseTokens(database.db, name, 10, policy, 2_000)).toEqual({ granted: 0, available: 0 });
    // An hour later: full, not more.
    expect((await leaseTokens(database.db, name, 1_000, policy, 3_602_500)).granted).toBe(500);
  });

  it('never gives concurrent leases more than the bucket holds', async () => {
    const name = bucket();
    const grants = await Promise.all(
      Array.from({ length: 20 }, () => leaseTokens(database.db, name, 40, policy, 5_000)),
    );
    expect(grants.reduce((sum, each) => sum + each.granted, 0)).toBe(500);
  });
});
