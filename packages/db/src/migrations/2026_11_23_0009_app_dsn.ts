// Each app gets what a Sentry DSN names: a public key (32 lowercase hex, random, unique) and a project id (a positive
// integer, unique, from an identity sequence), existing apps included. Frozen once landed.
import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // An identity column fills the rows already there from its sequence, and numbers every app created after.
  await db.schema
    .alterTable('apps')
    .addColumn('project_id', 'int8', (col) => col.generatedByDefaultAsIdentity().notNull())
    .execute();
  await db.schema.alterTable('apps').addColumn('public_key', 'text').execute();
  // Keys for the apps that exist, from Node's CSPRNG (PostgreSQL's random() is not one); apps are few.
  const apps = await db.selectFrom('apps').select('app_key').execute();
  for (const { app_key } of apps) {
    await db
      .updateTable('apps')
      .set({ public_key: randomBytes(16).toString('hex') })
      .where('app_key', '=', app_key)
      .execute();
  }
  await db.schema
    .alterTable('apps')
    .alterColumn('public_key', (col) => col.setNotNull())
    .execute();
  await sql`alter table apps add constraint apps_public_key_format check (public_key ~ '^[0-9a-f]{32}$')`.execute(db);
  await db.schema.createIndex('apps_public_key').on('apps').column('public_key').unique().execute();
  await db.schema.createIndex('apps_project_id').on('apps').column('project_id').unique().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('apps').dropColumn('public_key').execute();
  await db.schema.alterTable('apps').dropColumn('project_id').execute();
}
