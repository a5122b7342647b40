// Every statement of the write path updates the rows of the issues its events belong to (counts, last seen).
// issues_app_last_seen (migration 0001) indexed last_seen_at, which changes with nearly every such update, so none could
// be a HOT update: each wrote the new row version to another page and new entries to both indexes. After 1,000,000
// bench events: 798,404 updates of 5,045 issues, 364 of them HOT; 23 MB of heap and 118 MB of indexes for 5,045 rows,
// which the issue list reads in full. No query uses the index (the list reads the user's issues and sorts them;
// 0 scans of it after the query bench). Dropped, and the table's fillfactor set to 70 so that an updated row finds room
// in its own page. Frozen once landed.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists issues_app_last_seen`.execute(db);
  await sql`alter table issues set (fillfactor = 70)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table issues reset (fillfactor)`.execute(db);
  await sql`create index issues_app_last_seen on issues (app_key, last_seen_at desc, fingerprint desc)`.execute(db);
}
