// Migration 0025: events and event_ids without their row-by-row foreign keys to apps; the write statement locks each
// app once instead (write-path/events.ts, app_locks), and deleting an app deletes its events and event ids by trigger.
// On a database of its own: it migrates down and up, and deletes apps.
import { randomBytes } from 'node:crypto';
import type { StoredEvent } from '@collector/domain';
import { type Migration, Migrator, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyTestDatabaseUrl, insertUserAndApp } from '../../test/database';
import { openDatabase } from '../connection';
import { prepareBatch, storePreparedBatches } from '../ingest';
import { migrateToLatest } from '../migrate';
import { migrations } from './index';

const database = await openDatabase({ url: await emptyTestDatabaseUrl() });
afterAll(() => database.close());
const db = database.db;
const suffix = Math.random().toString(36).slice(2, 10);
const now = Date.now();
const event = (appKey: string, i: number): StoredEvent => ({
  eventId: `evt_fk${i}`,
  appKey,
  type: 'error',
  timestamp: now + i,
  fingerprint: 'TypeError:fk',
  message: 'boom',
  anonymousId: 'anon_1',
});
/** An app of a user of its own. */
const newApp = (appKey: string) =>
  insertUserAndApp(db, `user_${appKey}`, appKey, { publicKey: randomBytes(16).toString('hex') });
const store = (appKey: string, ...ids: number[]) =>
  storePreparedBatches(db, [prepareBatch({ appKey, events: ids.map((i) => event(appKey, i)), receivedAt: now })]);

/** The foreign keys of events and event_ids (the parents'; the partitions' copies follow them). */
const eventKeys = async () =>
  (
    await sql<{ n: number }>`select count(*)::int4 as n from pg_constraint
      where contype = 'f' and conparentid = 0 and conrelid in ('events'::regclass, 'event_ids'::regclass)`.execute(db)
  ).rows[0]?.n;

/** The app's rows in one of the two tables. */
const countOf = async (table: 'events' | 'event_ids', appKey: string) =>
  Number(
    (
      await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('app_key', '=', appKey)
        .executeTakeFirstOrThrow()
    ).n,
  );

/** The app's rows in events and event_ids. */
const rowsOf = async (appKey: string) => {
  const [events, ids] = await Promise.all([countOf('events', appKey), countOf('event_ids', appKey)]);
  return { events, ids };
};

describe('migration 0025: an event checks its app once a statement', () => {
  const appA = `web_fka${suffix}`;
  const appB = `web_fkb${suffix}`;

  it('drops the two keys, keeps the events, and deleting an app deletes its events and ids', async () => {
    // The write statement is today's, which needs today's tables: the schema before 0025 is the latest one less
    // 0025, by its own down.
    const appChecks = migrations['2026_11_27_0025_event_app_checks'] as Migration;
    await migrateToLatest(db);
    await appChecks.down?.(db);
    await newApp(appA);
    await newApp(appB);
    await store(appA, 1, 2);
    expect(await eventKeys()).toBe(2);
    await appChecks.up(db);
    expect(await eventKeys()).toBe(0);
    await store(appA, 3);
    await store(appB, 1);
    expect(await rowsOf(appA)).toEqual({ events: 3, ids: 3 });
    await db.deleteFrom('apps').where('app_key', '=', appA).execute();
    expect(await rowsOf(appA)).toEqual({ events: 0, ids: 0 });
    expect(await rowsOf(appB)).toEqual({ events: 1, ids: 1 });
    // A statement for the deleted app stores no event of it (its facets' key may refuse the whole statement instead).
    await store(appA, 4).catch(() => undefined);
    expect(await rowsOf(appA)).toEqual({ events: 0, ids: 0 });
  });

  it('a delete of the app waits for a write statement that stored its events, then deletes them', async () => {
    const appC = `web_fkc${suffix}`;
    await newApp(appC);
    // The issue, its user, facets and hour exist after this: the next event of the same issue and user inserts no row
    // that another table's key to apps checks, so only the statement's own lock holds the app.
    await store(appC, 1);
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let stored: () => void = () => {};
    const written = new Promise<void>((resolve) => {
      stored = resolve;
    });
    const writer = db.transaction().execute(async (trx) => {
      await storePreparedBatches(trx, [prepareBatch({ appKey: appC, events: [event(appC, 2)], receivedAt: now })]);
      stored();
      await held;
    });
    await written;
    // Another connection: the delete must wait for the writer's lock on the app's row.
    const refused = await db.connection().execute(async (conn) => {
      await sql`set lock_timeout = '300ms'`.execute(conn);
      try {
        await conn.deleteFrom('apps').where('app_key', '=', appC).execute();
        return null;
      } catch (error) {
        return (error as { code?: string }).code ?? String(error);
      } finally {
        await sql`reset lock_timeout`.execute(conn);
      }
    });
    release();
    await writer;
    expect(refused).toBe('55P03'); // lock_not_available
    expect(await rowsOf(appC)).toEqual({ events: 2, ids: 2 });
    await db.deleteFrom('apps').where('app_key', '=', appC).execute();
    expect(await rowsOf(appC)).toEqual({ events: 0, ids: 0 });
  });

  it('migrates down to the two keys again', async () => {
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    expect((await migrator.migrateTo('2026_11_27_0024_issues_list_index')).error).toBeUndefined();
    expect(await eventKeys()).toBe(2);
    expect((await sql`select from pg_trigger where tgname = 'apps_delete_events'`.execute(db)).rows).toHaveLength(0);
    await migrateToLatest(db);
    expect(await eventKeys()).toBe(0);
  });
});
