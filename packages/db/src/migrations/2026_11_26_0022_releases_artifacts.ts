// Releases, deploys and source-map artifacts (issue 22), as Sentry's CLI and bundler plugins send them. Releases are
// the organization's, as in Sentry (a version names one build of several apps); release_apps says which apps.
// Artifacts live in the database, so one backup holds everything and several collector processes share them:
// chunks as uploaded (owned by the organization that sent them, deduplicated by SHA-1), bundles assembled from them
// (one row per ZIP, deduplicated by checksum within an organization, its assembly state readable by any process),
// and each bundle's files indexed by debug ID and by (release, dist, URL). Frozen once landed.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table releases (
    org_id text not null references organizations (id) on delete cascade,
    version text not null,
    ref text,
    url text,
    created_at int8 not null,
    date_started int8,
    date_released int8,
    primary key (org_id, version)
  )`.execute(db);
  await sql`create table release_apps (
    org_id text not null,
    version text not null,
    app_key text not null references apps (app_key) on delete cascade,
    primary key (org_id, version, app_key),
    foreign key (org_id, version) references releases (org_id, version) on delete cascade
  )`.execute(db);
  // An app's releases page lists its releases.
  await sql`create index release_apps_app on release_apps (app_key, version)`.execute(db);
  await sql`create table deploys (
    id text primary key,
    org_id text not null,
    version text not null,
    environment text not null,
    name text,
    url text,
    date_started int8,
    date_finished int8 not null,
    foreign key (org_id, version) references releases (org_id, version) on delete cascade
  )`.execute(db);
  await sql`create index deploys_release on deploys (org_id, version, date_finished desc)`.execute(db);

  // A chunk as uploaded, uncompressed; deleted a day after it was last sent (bundles being assembled may share it).
  await sql`create table upload_chunks (
    org_id text not null references organizations (id) on delete cascade,
    checksum text not null check (checksum ~ '^[0-9a-f]{40}$'),
    data bytea not null,
    created_at int8 not null,
    primary key (org_id, checksum)
  )`.execute(db);
  await sql`create index upload_chunks_created on upload_chunks (created_at)`.execute(db);

  // One row per assemble request's checksum: its state is what every process answers `assemble` with.
  await sql`create table artifact_bundles (
    id text primary key,
    org_id text not null references organizations (id) on delete cascade,
    checksum text not null check (checksum ~ '^[0-9a-f]{40}$'),
    state text not null check (state in ('created', 'assembling', 'ok', 'error')),
    detail text,
    release text,
    dist text,
    chunks jsonb not null,
    size int8 not null default 0,
    file_count int4 not null default 0,
    created_at int8 not null,
    -- Renewed (at most once an hour) when the bundle maps an event; deleted after RETENTION_DAYS without use.
    last_used_at int8 not null,
    unique (org_id, checksum)
  )`.execute(db);
  await sql`create index artifact_bundles_release on artifact_bundles (org_id, release, dist) where state = 'ok'`.execute(
    db,
  );
  await sql`create index artifact_bundles_used on artifact_bundles (last_used_at)`.execute(db);

  // A bundle's files, from its manifest: `url` as the manifest gives it (`~/static/app.min.js`), `type` as Sentry
  // names it (minified_source, source_map, source...), the debug-id and sourcemap headers, and the bytes.
  await sql`create table artifact_files (
    bundle_id text not null references artifact_bundles (id) on delete cascade,
    org_id text not null,
    path text not null,
    url text not null,
    type text not null,
    debug_id text,
    sourcemap text,
    content bytea not null,
    size int4 not null,
    primary key (bundle_id, path)
  )`.execute(db);
  // Symbolication's two look-ups: by debug ID, and by URL within the bundles of a release.
  await sql`create index artifact_files_debug_id on artifact_files (org_id, debug_id, type) where debug_id is not null`.execute(
    db,
  );
  await sql`create index artifact_files_url on artifact_files (bundle_id, url)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table artifact_files`.execute(db);
  await sql`drop table artifact_bundles`.execute(db);
  await sql`drop table upload_chunks`.execute(db);
  await sql`drop table deploys`.execute(db);
  await sql`drop table release_apps`.execute(db);
  await sql`drop table releases`.execute(db);
}
