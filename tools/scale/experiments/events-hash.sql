-- Today's day partition of events (where the load's events land) made of four partitions by hash of event_id, so that
-- concurrent statements insert into four heaps and four copies of each index instead of one (docs/scaling.md).
do $$
declare
  day int8 := floor(extract(epoch from now()) * 1000 / 86400000)::int8;
  name text := 'events_' || to_char(now() at time zone 'utc', 'YYYY_MM_DD');
begin
  execute format('drop table %I', name);
  execute format('create table %I partition of events for values from (%s) to (%s) partition by hash (event_id)',
    name, day * 86400000, (day + 1) * 86400000);
  for i in 0..3 loop
    execute format('create table %I partition of %I for values with (modulus 4, remainder %s)', name || '_h' || i, name, i);
  end loop;
end $$;
