// The overview over a time window reads events only for the partial hours at its edges: with the type, the anonymous
// id and the fingerprint in the index, that read never touches the (large) event rows. Replaces events_app_timestamp.
// Frozen once landed.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index events_app_timestamp_window on events (app_key, timestamp) include (type, anonymous_id, fingerprint)`.execute(
    db,
  );
  await sql`drop index events_app_timestamp`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`create index events_app_timestamp on events (app_key, timestamp)`.execute(db);
  await sql`drop index events_app_timestamp_window`.execute(db);
}
