// The look-ups behind symbolication, counted on a real database: an app that uploads source maps must not pay a query
// per event for frames no map covers (third-party scripts, an older release), and an upload is still seen within the
// cache's few seconds. The mapping itself is tested through HTTP (services/collector/test/symbolication.test.ts).
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { insertApp, insertUser, openDatabase } from '@collector/db';
import { testDatabaseUrl } from '@collector/db/testing';
import type { StoredEvent } from '@collector/domain';
import { afterAll, describe, expect, it } from 'vitest';
import { Symbolicator } from './symbolicator';

const database = await openDatabase({ url: await testDatabaseUrl() });
let queries = 0;
const counting: Parameters<typeof database.db.withPlugin>[0] = {
  transformQuery: ({ node }) => {
    queries++;
    return node;
  },
  transformResult: async ({ result }) => result,
};
const db = database.db.withPlugin(counting);
let now = Date.UTC(2026, 10, 26, 12);
const symbolicator = new Symbolicator(db, { workers: 1, timeoutMs: 5_000, cacheBytes: 1024 * 1024 }, () => now);
afterAll(async () => {
  await symbolicator.close();
  await database.close();
});

/** An app whose organization holds one bundle (of release 1.0), so that its events are looked up. */
async function appWithBundle() {
  const userId = randomUUID();
  await insertUser(database.db, { id: userId, email: `${userId}@example.com`, passwordHash: 'x', createdAt: now });
  const orgId = `org-${randomBytes(6).toString('hex')}`;
  await database.db
    .insertInto('organizations')
    .values({ id: orgId, slug: orgId, name: orgId, created_at: now })
    .execute();
  const appKey = `web_${randomBytes(8).toString('hex')}`;
  await insertApp(database.db, {
    app_key: appKey,
    org_id: orgId,
    slug: appKey.replaceAll('_', '-'),
    user_id: userId,
    name: 'Shop',
    type: 'web',
    created_at: now,
    public_key: randomBytes(16).toString('hex'),
  });
  const id = randomUUID();
  await database.db
    .insertInto('artifact_bundles')
    .values({
      id,
      org_id: orgId,
      checksum: createHash('sha1').update(id).digest('hex'),
      state: 'ok',
      detail: null,
      release: '1.0',
      dist: null,
      chunks: JSON.stringify([]),
      size: 1,
      file_count: 1,
      created_at: now,
      last_used_at: now,
    })
    .execute();
  return appKey;
}

/** An event of `release` thrown in a script no bundle holds. */
const unmappedEvent = (release: string): StoredEvent => ({
  eventId: `evt_${randomBytes(8).toString('hex')}`,
  type: 'error',
  timestamp: now,
  appKey: '',
  fingerprint: 'Error:1',
  release,
  exceptions: [
    {
      type: 'Error',
      frames: [{ function: 'track', absPath: 'https://cdn.example/vendor/analytics.js', line: 1, column: 420 }],
    },
  ],
});

/** The queries `prepare` made for these events, each of which must come out `missing`. */
async function queriesFor(appKey: string, events: StoredEvent[]): Promise<number> {
  queries = 0;
  await symbolicator.prepare(appKey, events);
  expect(events.map((event) => event.symbolication)).toEqual(events.map(() => ({ state: 'missing' })));
  return queries;
}

const times = (n: number, release: string) => Array.from({ length: n }, () => unmappedEvent(release));

describe('Symbolicator look-ups', () => {
  it('asks once per few seconds about a release, and about the files of one that has bundles, concurrent events sharing each query', async () => {
    const appKey = await appWithBundle();
    // A release without bundles: whether the app's organization has bundles, whether the release has; no file asked.
    expect(await queriesFor(appKey, times(3, '2.0'))).toBe(2);
    expect(await queriesFor(appKey, times(2, '2.0'))).toBe(0);
    // The bundles' release: whether it has bundles, then the script's URLs, once for the three events.
    expect(await queriesFor(appKey, times(3, '1.0'))).toBe(2);
    expect(await queriesFor(appKey, times(2, '1.0'))).toBe(0);
    // Past the cache's few seconds an upload made meanwhile would be found: every answer is asked for again.
    now += 10_000;
    expect(await queriesFor(appKey, times(1, '1.0'))).toBe(3);
  });
});
