// The one classifier, against the errors a real database raises.
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../test/database';
import { openDatabase } from './connection';
import { classifyDatabaseError } from './database-errors';

const database = await openDatabase({ url: await testDatabaseUrl() });
afterAll(() => database.close());

const failureOf = (run: () => Promise<unknown>) =>
  run().then(
    () => expect.unreachable('it succeeded'),
    (error: unknown) => error,
  );

describe('classifyDatabaseError', () => {
  it('says the input is at fault for text the database cannot store and for a broken constraint', async () => {
    expect(
      classifyDatabaseError(
        await failureOf(() => sql`select convert_from('\\x6100'::bytea, 'UTF8')`.execute(database.db)),
      ),
    ).toBe('input');
    expect(classifyDatabaseError(await failureOf(() => sql`select ${'\u0000'}::text`.execute(database.db)))).toBe(
      'input',
    );
    const user = {
      id: `user_dup${Math.random().toString(36).slice(2)}`,
      email: `dup${Math.random()}@example.com`,
      password_hash: '-',
      created_at: 0,
    };
    await database.db.insertInto('users').values(user).execute();
    expect(classifyDatabaseError(await failureOf(() => database.db.insertInto('users').values(user).execute()))).toBe(
      'input',
    );
  });

  it('says a statement that collided with another may be retried, through wrapping causes', () => {
    const deadlock = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    expect(classifyDatabaseError(deadlock)).toBe('retryable');
    expect(
      classifyDatabaseError(
        new Error('wrapped', { cause: Object.assign(new Error('could not serialize access'), { code: '40001' }) }),
      ),
    ).toBe('retryable');
  });

  it('says unavailable for a refused connection and other for a bug', async () => {
    const unreachable = await openDatabase({ url: 'postgres://postgres@127.0.0.1:1/none' });
    try {
      expect(classifyDatabaseError(await failureOf(() => sql`select 1`.execute(unreachable.db)))).toBe('unavailable');
    } finally {
      await unreachable.close();
    }
    expect(classifyDatabaseError(await failureOf(() => sql`select * from no_such_table`.execute(database.db)))).toBe(
      'other',
    );
    expect(classifyDatabaseError(new TypeError('x is undefined'))).toBe('other');
  });
});
