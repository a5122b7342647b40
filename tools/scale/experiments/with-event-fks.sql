-- The two foreign keys to apps that migration 0025 replaced, added back (as migration 0024 had them): the write
-- statement's row-by-row checks of an app's row again, to compare with the once-a-statement lock in one run.
alter table event_ids add constraint event_ids_app_key_fkey
  foreign key (app_key) references apps (app_key) on delete cascade;
alter table events add constraint events_app_key_fkey
  foreign key (app_key) references apps (app_key) on delete cascade;
