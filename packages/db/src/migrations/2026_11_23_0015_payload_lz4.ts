// Event payloads compressed with lz4 where the server has it (a build option: Debian's, Ubuntu's, the official images
// and the big clouds' have it; the embedded default's npm binaries and PGlite have not, and keep pglz). A payload of
// ~2 KB is just over the size PostgreSQL compresses at; lz4 compresses it to the same size as pglz in ~15 µs less CPU
// per event (docs/performance.md). Only values written from now on change: nothing is rewritten. Frozen once landed.
import { type Kysely, sql } from 'kysely';

async function eventTables(db: Kysely<any>): Promise<string[]> {
  // The partitioned table's own setting is what a new partition takes (PARTITION OF, and retention.ts's LIKE ...
  // INCLUDING COMPRESSION); ALTER on it does not reach the partitions already there, so each is set too.
  const { rows } = await sql<{ name: string }>`
    select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'events'::regclass`.execute(
    db,
  );
  return ['events', ...rows.map((row) => row.name)];
}

export async function up(db: Kysely<any>): Promise<void> {
  const { rows } = await sql<{ lz4: boolean }>`
    select 'lz4' = any(enumvals) as lz4 from pg_settings where name = 'default_toast_compression'`.execute(db);
  if (!rows[0]?.lz4) return;
  for (const table of await eventTables(db))
    await sql`alter table ${sql.id(table)} alter column payload set compression lz4`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of await eventTables(db))
    await sql`alter table ${sql.id(table)} alter column payload set compression default`.execute(db);
}
