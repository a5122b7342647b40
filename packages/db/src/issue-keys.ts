// A page of issues named by key, as one relation that the page's other reads join: one statement text and one plan
// for any number of keys, where `(app_key = $1 and fingerprint = $2) or ...` is a new text for each count, and took
// PostgreSQL ~1 ms to plan at 50 keys, longer than running it.
import { type RawBuilder, sql } from 'kysely';

export interface IssueKey {
  appKey: string;
  fingerprint: string;
}

/**
 * `select ... as k(app_key, fingerprint, n)`: the keys as rows, to put in a WITH and join `using (app_key, fingerprint)`;
 * n is a key's place in `keys`, from 1, for answers that name an issue by a number rather than by its two texts.
 */
export function issueKeyRows(
  keys: readonly IssueKey[],
): RawBuilder<{ app_key: string; fingerprint: string; n: number }> {
  return sql`select * from unnest(${keys.map((key) => key.appKey)}::text[],
    ${keys.map((key) => key.fingerprint)}::text[]) with ordinality as k(app_key, fingerprint, n)`;
}
