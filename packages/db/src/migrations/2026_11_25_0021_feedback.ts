// User feedback (issue 23): Sentry's `feedback` items and the older `user_report` items, each about an event or about
// the app as a whole. A feedback records the event it is about (event_id, the collector's `evt_` id) and, once known,
// that event's issue (fingerprint): written with the feedback when its event was already stored, else by the write
// statement when the event arrives (write-path/feedback.ts). The fingerprint is what links it for good: an event's
// payload may be deleted later (retention, the cap per issue), and events has no index by event id to find it again.
// Frozen once landed.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table feedback (
    id int8 generated always as identity primary key,
    app_key text not null references apps (app_key) on delete cascade,
    kind text not null,
    source_id text not null,
    event_id text,
    fingerprint text,
    name text,
    email text,
    message text not null,
    url text,
    received_at int8 not null,
    -- A retry of the same item is stored once.
    unique (app_key, kind, source_id)
  )`.execute(db);
  // The app's list and the list, newest first.
  await sql`create index feedback_app on feedback (app_key, id desc)`.execute(db);
  await sql`create index feedback_issue on feedback (app_key, fingerprint, id desc) where fingerprint is not null`.execute(
    db,
  );
  // What the write statement probes for each new event: feedback still waiting for it. Small, usually empty.
  await sql`create index feedback_waiting on feedback (app_key, event_id)
    where fingerprint is null and event_id is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table feedback`.execute(db);
}
