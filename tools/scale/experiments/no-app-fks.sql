-- Every foreign key to apps dropped: PostgreSQL checks each row inserted into such a table by locking the app's one
-- row in key-share mode. Migration 0025 replaced the two checked once an event (events, event_ids) by one lock a
-- statement; these are the rest, checked once a new issue, user, hour or facet (docs/scaling.md, "Foreign keys on
-- sixteen cores").
do $$
declare r record;
begin
  for r in select conrelid::regclass as t, conname from pg_constraint
    where contype = 'f' and confrelid = 'apps'::regclass and conparentid = 0
  loop
    execute format('alter table %s drop constraint %I', r.t, r.conname);
  end loop;
end $$;
