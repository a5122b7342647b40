// Migration 0008 on a database that 0007 left with activity rows: kinds 'u' and 'i' become 'user' and 'issue', and
// overview_window() is recreated from the migration's own copy and counts them; down restores both. Always on a fresh,
// empty database: the PostgreSQL test database is shared and already migrated (global-setup.ts).
import { HOUR } from '@collector/domain';
import { Migrator, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyTestDatabaseUrl, insertUserAndApp } from '../../test/database';
import { openDatabase } from '../connection';
import { migrations } from './index';

const database = await openDatabase({ url: await emptyTestDatabaseUrl() });
afterAll(() => database.close());
const db = database.db;
const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });

const kinds = async () => {
  const { rows } = await sql<{ kind: string }>`
    select kind from activity_hours union all select kind from activity_by_prev_day union all select kind from activity_by_hour`.execute(
    db,
  );
  return rows.map((row) => row.kind).sort();
};

describe('migration 0008: activity kinds in words', () => {
  it('renames the stored kinds and counts them with the recreated function, and goes back', async () => {
    expect((await migrator.migrateTo('2026_11_21_0007_activity_by_hour')).error).toBeUndefined();
    await insertUserAndApp(db, 'user_m', 'web_m');
    // One user and one issue, each active in hours 100 (day 4) and 130 (day 5).
    await sql`insert into activity_hours (app_key, kind, subject, hour, prev_hour) values
      ('web_m', 'u', 'anon_1', 100, -1), ('web_m', 'u', 'anon_1', 130, 100), ('web_m', 'i', 'TypeError:a', 100, -1), ('web_m', 'i', 'TypeError:a', 130, 100)`.execute(
      db,
    );
    await sql`insert into activity_by_prev_day (app_key, kind, day, prev_day, links) values
      ('web_m', 'u', 4, -1, 1), ('web_m', 'u', 5, 4, 1), ('web_m', 'i', 4, -1, 1), ('web_m', 'i', 5, 4, 1)`.execute(db);
    await sql`insert into activity_by_hour (app_key, kind, hour, prev_day, links) values
      ('web_m', 'u', 100, -1, 1), ('web_m', 'u', 130, 4, 1), ('web_m', 'i', 100, -1, 1), ('web_m', 'i', 130, 4, 1)`.execute(
      db,
    );

    expect((await migrator.migrateTo('2026_11_23_0008_activity_kind_names')).error).toBeUndefined();
    expect(await kinds()).toEqual([...Array(6).fill('issue'), ...Array(6).fill('user')]);
    // Hours 99 to 200: the links at 100 and 130 lie in the whole hours between, and follow nothing before the window.
    const { rows } = await sql<{ window_users: number; window_issues: number }>`
      select window_users, window_issues from overview_window(array['web_m'], null, ${99 * HOUR}::int8, ${200 * HOUR}::int8)`.execute(
      db,
    );
    expect(rows).toEqual([{ window_users: 1, window_issues: 1 }]);

    // Back to 0007 (later migrations, such as 0009, go down first).
    expect((await migrator.migrateTo('2026_11_21_0007_activity_by_hour')).error).toBeUndefined();
    expect(await kinds()).toEqual([...Array(6).fill('i'), ...Array(6).fill('u')]);
    const { rows: before } = await sql<{ w_users: number; w_issues: number }>`
      select w_users, w_issues from overview_window(array['web_m'], null, ${99 * HOUR}::int8, ${200 * HOUR}::int8)`.execute(
      db,
    );
    expect(before).toEqual([{ w_users: 1, w_issues: 1 }]);
  });
});
