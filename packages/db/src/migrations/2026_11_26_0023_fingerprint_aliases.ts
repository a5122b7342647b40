// Fingerprint aliases (issue 22): when the write statement sends an event to the issue of its previous grouping
// version's fingerprint (a source-mapped event to the issue its minified frames made), it records that its current
// fingerprint means that issue. Without it the next rebuild splits the issue again: the previous fingerprint changes
// with the minified names, and the current one never got an issue of its own. Read only for events that carry a
// previous fingerprint (write-path/events.ts). Frozen once landed.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table fingerprint_aliases (
    app_key text not null references apps (app_key) on delete cascade,
    fingerprint text not null,
    issue_fingerprint text not null,
    created_at int8 not null,
    primary key (app_key, fingerprint)
  )`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table fingerprint_aliases`.execute(db);
}
