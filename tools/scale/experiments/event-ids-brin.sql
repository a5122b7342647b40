-- event_ids' index on day as BRIN: a btree's inserts of one day all land on its right-most leaf (docs/scaling.md).
drop index event_ids_day;
create index event_ids_day on event_ids using brin (day);
