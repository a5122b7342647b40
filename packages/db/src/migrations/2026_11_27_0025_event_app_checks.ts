// events and event_ids get a row per stored event, and each had a foreign key to apps, which PostgreSQL checks row by
// row by locking the app's one row in key-share mode: two checks an event, every concurrent statement of the app on one
// row and one buffer. On 16 cores with eight processes that was ~15-25 µs of PostgreSQL's ~160-190 an event
// (docs/scaling.md, "Foreign keys on sixteen cores"). Both keys are replaced by what they did, once a statement: the
// write statement locks each app of its events in key-share mode and claims ids only for those (write-path/events.ts,
// app_locks), so an app deleted first gets no event row and a delete waits for the statement; deleting an app deletes
// its events and event ids by a statement trigger, as the keys' cascade did. Every other table keeps its key: their
// rows come once a new issue, user, hour or facet, not once an event. Frozen once landed.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // By catalogue rather than by name: events' key was named by migration 0011's rebuild; the partitions' copies go
  // with their parent's.
  await sql`do $$
    declare r record;
    begin
      for r in select conrelid::regclass as t, conname from pg_constraint
        where contype = 'f' and confrelid = 'apps'::regclass and conparentid = 0
          and conrelid in ('events'::regclass, 'event_ids'::regclass)
      loop
        execute format('alter table %s drop constraint %I', r.t, r.conname);
      end loop;
    end $$`.execute(db);
  await sql`create function delete_app_events() returns trigger language plpgsql as $$
    begin
      delete from event_ids where app_key in (select app_key from deleted_apps);
      delete from events where app_key in (select app_key from deleted_apps);
      return null;
    end $$`.execute(db);
  await sql`create trigger apps_delete_events after delete on apps
    referencing old table as deleted_apps for each statement execute function delete_app_events()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger apps_delete_events on apps`.execute(db);
  await sql`drop function delete_app_events()`.execute(db);
  await sql`alter table event_ids add constraint event_ids_app_key_fkey foreign key (app_key)
    references apps (app_key) on delete cascade`.execute(db);
  await sql`alter table events add constraint events_app_key_fkey foreign key (app_key)
    references apps (app_key) on delete cascade`.execute(db);
}
