// Prepared statements by mark (connection.ts): a family of shapes cannot take the names the fixed texts need.
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../test/database';
import { openDatabase, PREPARED, PREPARED_SHAPE } from './connection';

const url = await testDatabaseUrl();
// One connection, so that pg_prepared_statements shows what this pool prepared.
const database = await openDatabase({ url, maxConnections: 1 });
afterAll(() => database.close());

const prepared = async () =>
  (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(database.db)).rows.map(
    (row) => row.statement,
  );

describe('statements marked prepared', () => {
  it('prepares the first 32 texts of a shape family, and a fixed text after any number of shapes', async () => {
    for (let i = 0; i < 70; i++) await sql.raw(`${PREPARED_SHAPE}select ${i} as shape`).execute(database.db);
    await sql.raw(`${PREPARED}select 'fixed' as text`).execute(database.db);
    const statements = await prepared();
    expect(statements.filter((text) => text.startsWith(PREPARED_SHAPE))).toHaveLength(32);
    expect(statements).toContain(`${PREPARED}select 'fixed' as text`);
  });
});
