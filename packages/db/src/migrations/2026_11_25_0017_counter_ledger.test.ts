// Migration 0017 on a database made by the code before it: every counter reads as it did (now through its view), the
// breakdown's counts are filled from the events still stored, and a write after it adds to them.
import { Migrator, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyTestDatabaseUrl } from '../../test/database';
import { openDatabase } from '../connection';
import { foldCounters } from '../counters';
import { prepareBatch, storePreparedBatches } from '../ingest';
import { migrateToLatest } from '../migrate';
import { migrations } from '.';

const database = await openDatabase({ url: await emptyTestDatabaseUrl() });
afterAll(() => database.close());
const db = database.db;

describe('migration 0017: the counter ledger', () => {
  it('keeps every count of a database made before it, and fills the breakdown from the stored events', async () => {
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    const { error } = await migrator.migrateTo('2026_11_23_0016_issues_hot_updates');
    expect(error).toBeUndefined();
    await sql`insert into users (id, email, password_hash, created_at) values ('user_ledger', 'ledger@example.com', '-', 0)`.execute(
      db,
    );
    await sql`insert into apps (app_key, user_id, name, type, created_at, public_key)
      values ('web_ledger', 'user_ledger', 'L', 'web', 0, ${'e'.repeat(32)})`.execute(db);
    await sql`insert into app_totals (app_key) values ('web_ledger')`.execute(db);
    const now = Date.now();
    // Rows as the write statement before 0017 left them: an issue with two events, its totals and hourly counts.
    const payload = (userAgent: string) =>
      JSON.stringify({
        eventId: 'x',
        appKey: 'web_ledger',
        type: 'error',
        timestamp: now,
        fingerprint: 'js:a',
        message: 'boom',
        release: '1.0',
        userAgent,
      });
    await sql`insert into events (app_key, event_id, fingerprint, type, timestamp, received_at, anonymous_id, payload) values
      ('web_ledger', 'e1', 'js:a', 'error', ${now}, ${now}, 'anon_1', ${payload('Mozilla/5.0 Firefox/120.0')}::jsonb),
      ('web_ledger', 'e2', 'js:a', 'error', ${now}, ${now}, 'anon_2', ${payload('Mozilla/5.0 Firefox/120.0')}::jsonb)`.execute(
      db,
    );
    await sql`insert into issues (app_key, fingerprint, message, error_type, event_count, user_count, first_seen_at, last_seen_at, level)
      values ('web_ledger', 'js:a', 'boom', 'Error', 2, 2, ${now}, ${now}, 'error')`.execute(db);
    await sql`update app_totals set events = 2, errors = 2, issues = 1, users = 2 where app_key = 'web_ledger'`.execute(
      db,
    );
    await sql`insert into app_hourly (app_key, hour_start, events, errors, failed_requests) values ('web_ledger', 0, 2, 2, 0)`.execute(
      db,
    );

    await migrateToLatest(db);
    const totals = await db.selectFrom('app_totals').selectAll().where('app_key', '=', 'web_ledger').execute();
    expect(totals).toEqual([{ app_key: 'web_ledger', events: 2, errors: 2, failed_requests: 0, issues: 1, users: 2 }]);
    expect(
      await db.selectFrom('app_hourly').select(['hour_start', 'events']).where('app_key', '=', 'web_ledger').execute(),
    ).toEqual([{ hour_start: 0, events: 2 }]);
    const contexts = await db
      .selectFrom('issue_contexts')
      .select(['release', 'environment', 'user_agent', 'events'])
      .where('app_key', '=', 'web_ledger')
      .execute();
    expect(contexts).toEqual([{ release: '1.0', environment: '', user_agent: 'Mozilla/5.0 Firefox/120.0', events: 2 }]);

    // A write after it goes through the ledger, and reads the same before and after a fold.
    await storePreparedBatches(db, [
      prepareBatch({
        appKey: 'web_ledger',
        receivedAt: now,
        events: [
          {
            eventId: 'e3',
            appKey: 'web_ledger',
            type: 'error',
            timestamp: now,
            fingerprint: 'js:a',
            message: 'boom',
            release: '1.0',
          },
        ],
      }),
    ]);
    const issue = () =>
      db
        .selectFrom('issues_live')
        .select(['event_count', 'user_count'])
        .where('app_key', '=', 'web_ledger')
        .executeTakeFirst();
    expect(await issue()).toEqual({ event_count: 3, user_count: 2 });
    await foldCounters(db);
    expect(await issue()).toEqual({ event_count: 3, user_count: 2 });
    const { rows } = await sql<{
      events: number;
    }>`select events from issue_contexts where app_key = 'web_ledger' and user_agent = ''`.execute(db);
    expect(rows).toEqual([{ events: 1 }]);

    // And down again: the counters are tables once more, with what the ledger held folded in.
    const down = await migrator.migrateTo('2026_11_23_0016_issues_hot_updates');
    expect(down.error).toBeUndefined();
    const { rows: kind } = await sql<{
      kind: string;
    }>`select relkind::text as kind from pg_class where relname = 'app_totals'`.execute(db);
    expect(kind).toEqual([{ kind: 'r' }]);
    await migrateToLatest(db);
  });
});
