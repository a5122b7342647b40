// Prepared statements by mark (connection.ts): a family of shapes cannot take the names the fixed texts need; a
// prepared look-up is built once and fills in each call's arguments; the issue list's searches are shapes.

import type { SearchTerm } from '@collector/domain';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../test/database';
import { openDatabase, PREPARED, PREPARED_SEARCH, PREPARED_SHAPE, prepared } from './connection';
import { listIssues } from './issues';

const url = await testDatabaseUrl();
// One connection, so that pg_prepared_statements shows what this pool prepared.
const database = await openDatabase({ url, maxConnections: 1 });
afterAll(() => database.close());

const preparedTexts = async () =>
  (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(database.db)).rows.map(
    (row) => row.statement,
  );

// First: the shape test below fills the names a family of shapes may take.
describe('the issue list', () => {
  const list = (terms: SearchTerm[]) =>
    listIssues(database.db, { orgIds: ['org_prepared_test'], terms, sort: 'lastSeen', limit: 10 });
  const release = (text: string): SearchTerm => ({
    key: 'release',
    negated: false,
    values: [{ match: 'exact', text }],
    raw: `release:${text}`,
  });
  const level: SearchTerm = { key: 'level', negated: true, values: ['info'], raw: '!level:info' };

  it('prepares a search as one text whatever its values and the order of its terms, but not one with a pattern', async () => {
    await list([release('shop@prepared-1'), level]);
    await list([level, release('shop@prepared-2')]);
    await list([
      { key: 'tag', tag: 'page', negated: false, values: [{ match: 'pattern', pieces: ['/patterned', ''] }], raw: '' },
    ]);
    const searches = (await preparedTexts()).filter((text) => text.includes('issue_facets'));
    expect(searches).toHaveLength(1);
    expect(searches[0]?.startsWith(PREPARED_SEARCH)).toBe(true);
    expect(searches[0]).not.toContain('shop@prepared');
    expect(searches[0]).not.toContain(' like ');
  });
});

describe('statements marked prepared', () => {
  it('prepares the first texts of each family up to its share, and a fixed text after any number of them', async () => {
    for (let i = 0; i < 40; i++) await sql.raw(`${PREPARED_SEARCH}select ${i} as search`).execute(database.db);
    for (let i = 0; i < 70; i++) await sql.raw(`${PREPARED_SHAPE}select ${i} as shape`).execute(database.db);
    await sql.raw(`${PREPARED}select 'fixed' as text`).execute(database.db);
    const statements = await preparedTexts();
    // The list's search above took one of the searches' 16 names.
    expect(statements.filter((text) => text.startsWith(PREPARED_SEARCH))).toHaveLength(16);
    expect(statements.filter((text) => text.startsWith(PREPARED_SHAPE))).toHaveLength(32);
    expect(statements).toContain(`${PREPARED}select 'fixed' as text`);
  });
});

describe('a prepared look-up', () => {
  it('is built once, and each call runs its text with that call’s arguments and the builder’s own values', async () => {
    let builds = 0;
    // The user an id names, if its e-mail is one of two: the second is the builder's own value, not an argument.
    const userWith = prepared((db, id: string, email: string) => {
      builds += 1;
      return db
        .selectFrom('users')
        .select(['id', 'email'])
        .where('id', '=', id)
        .where('email', 'in', [email, 'nobody']);
    });
    const db = database.db;
    const ids = [0, 1].map((i) => `user_prep${i}${Math.random().toString(36).slice(2, 10)}`);
    for (const id of ids)
      await db
        .insertInto('users')
        .values({ id, email: `${id}@example.com`, password_hash: '-', created_at: 0 })
        .execute();
    const [first, second] = ids as [string, string];
    expect((await db.executeQuery(userWith(db, first, `${first}@example.com`))).rows).toEqual([
      { id: first, email: `${first}@example.com` },
    ]);
    expect((await db.executeQuery(userWith(db, second, `${second}@example.com`))).rows).toEqual([
      { id: second, email: `${second}@example.com` },
    ]);
    expect((await db.executeQuery(userWith(db, second, `${first}@example.com`))).rows).toEqual([]);
    expect(builds).toBe(1);
    const text = userWith(db, 'x', 'y').sql;
    expect(text.startsWith(PREPARED)).toBe(true);
    expect(await preparedTexts()).toContain(text);
  });
});
