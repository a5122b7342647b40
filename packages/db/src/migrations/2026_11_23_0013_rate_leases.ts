// One token bucket per rate-limited subject (an app's ingestion), shared by every collector process on this database.
// Processes do not spend from it per request: each leases a handful of tokens at a time (rate-leases.ts).
// Frozen once landed.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table rate_buckets (
      bucket text primary key,
      tokens double precision not null,
      updated_at bigint not null
    )`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table rate_buckets`.execute(db);
}
