// overview_window() is created by migrations (0006, 0007, 0008, 0014, 0019, 0026), each from its own frozen copy of the
// function's text, and its live source is windowed-counts.ts. These tests keep the copies from drifting: the latest migration's
// copy is the live source's text, each down restores exactly the function the migration before it created, and a
// database migrated to the latest has the function that the live source creates. On a fresh, empty database: the
// PostgreSQL test database is shared and already migrated (global-setup.ts).
import { type Kysely, Migrator, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyTestDatabaseUrl } from '../../test/database';
import { openDatabase } from '../connection';
import { createOverviewWindow } from '../windowed-counts';
import { overviewWindowAsOf0026 } from './2026_11_27_0026_overview_last_hour';
import { migrations } from './index';

const database = await openDatabase({ url: await emptyTestDatabaseUrl() });
afterAll(() => database.close());
const db = database.db as unknown as Kysely<any>;
const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });

const migrateTo = async (name: string) => {
  const { error, results = [] } = await migrator.migrateTo(name);
  expect(error).toBeUndefined();
  expect(results.filter((result) => result.status === 'Error')).toEqual([]);
};

/** The function as the server has it: its header, normalised, and its body as written. */
const definition = async (on: Kysely<any> = db) => {
  const { rows } = await sql<{ definition: string }>`
    select pg_get_functiondef('overview_window'::regproc) as definition`.execute(on);
  return rows[0]!.definition;
};

describe('overview_window(): frozen copies and the live source', () => {
  it('the latest copy in a migration (0026) is the text of windowed-counts.ts', () => {
    // On failure: a change to windowed-counts.ts takes a new migration that creates the function from its own copy of
    // the new text (and restores the one before in its down); compare with that copy here.
    const frozen = overviewWindowAsOf0026.compile(db);
    const live = createOverviewWindow.compile(db);
    expect(frozen.parameters).toEqual([]);
    expect(live.parameters).toEqual([]);
    expect(frozen.sql).toBe(live.sql);
  });

  it('each down restores the function the migration before created, and the latest is the live one', async () => {
    await migrateTo('2026_11_21_0006_overview_window');
    const asOf0006 = await definition();
    await migrateTo('2026_11_21_0007_activity_by_hour');
    const asOf0007 = await definition();
    await migrateTo('2026_11_23_0008_activity_kind_names');
    const asOf0008 = await definition();
    await migrateTo('2026_11_23_0014_deleted_event_minutes');
    const asOf0014 = await definition();
    await migrateTo('2026_11_25_0019_org_users');
    const asOf0019 = await definition();
    await migrateTo('2026_11_27_0026_overview_last_hour');
    const asOf0026 = await definition();
    expect(new Set([asOf0006, asOf0007, asOf0008, asOf0014, asOf0019, asOf0026]).size).toBe(6);

    await migrateTo('2026_11_27_0025_event_app_checks');
    expect(await definition()).toBe(asOf0019);
    await migrateTo('2026_11_25_0018_organizations');
    expect(await definition()).toBe(asOf0014);

    await migrateTo('2026_11_23_0013_rate_leases');
    expect(await definition()).toBe(asOf0008);
    await migrateTo('2026_11_21_0007_activity_by_hour');
    expect(await definition()).toBe(asOf0007);
    await migrateTo('2026_11_21_0006_overview_window');
    expect(await definition()).toBe(asOf0006);

    // At the latest migration, the live source run over the function (in a transaction rolled back) changes nothing.
    await migrateTo(Object.keys(migrations).at(-1)!);
    const latest = await definition();
    const rollback = new Error('rollback');
    let live: string | undefined;
    await expect(
      db.transaction().execute(async (trx) => {
        await createOverviewWindow.execute(trx);
        live = await definition(trx);
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    expect(live).toBe(latest);
  });
});
