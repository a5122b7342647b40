// Triage: an issue's status, regression, culprit, level and latest release; per issue, events per UTC day (its chart)
// and the releases and environments it has been seen in (the list's filters), both kept by the write path.
// Frozen once landed.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // The backfill below reads every stored event once.
  await sql`set local statement_timeout = 0`.execute(db);
  await db.schema
    .alterTable('issues')
    .addColumn('status', 'text', (col) => col.notNull().defaultTo('unresolved'))
    .addColumn('status_changed_at', 'int8')
    .addColumn('regressed_at', 'int8')
    // Set by the write path on each of its updates: whether that update reopened a resolved issue. Its RETURNING reads
    // it, since RETURNING sees only the row as written, not the status the update found.
    .addColumn('regressed_by_last_write', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('culprit', 'text')
    .addColumn('level', 'text', (col) => col.notNull().defaultTo('error'))
    .addColumn('last_release', 'text')
    // The type of the first event: error or request.
    .addColumn('type', 'text', (col) => col.notNull().defaultTo('error'))
    // What the list's search reads: message, error type and culprit, lower-cased once when written rather than for
    // every issue at every search.
    .addColumn('search_text', 'text', (col) => col.notNull().defaultTo(''))
    .execute();
  // Issues stored before: type and latest release from their newest stored event (the culprit is filled in by their
  // next event, which the write path computes it from).
  await sql`
    update issues i set
      type = coalesce(e.type, case when i.error_type = 'request' then 'request' else 'error' end),
      last_release = e.payload->>'release',
      level = coalesce(e.payload->>'level', 'error'),
      search_text = lower(i.message || E'\n' || i.error_type)
    from issues j
    left join lateral (
      select type, payload from events e where e.app_key = j.app_key and e.fingerprint = j.fingerprint
      order by e.timestamp desc, e.event_id desc limit 1
    ) e on true
    where j.app_key = i.app_key and j.fingerprint = i.fingerprint`.execute(db);

  await db.schema
    .createTable('issue_days')
    .addColumn('app_key', 'text', (col) => col.notNull().references('apps.app_key').onDelete('cascade'))
    .addColumn('fingerprint', 'text', (col) => col.notNull())
    // UTC day of the events' timestamps: ms / 86,400,000.
    .addColumn('day', 'int4', (col) => col.notNull())
    .addColumn('events', 'int8', (col) => col.notNull())
    .addPrimaryKeyConstraint('issue_days_pkey', ['app_key', 'fingerprint', 'day'])
    .execute();
  await sql`
    insert into issue_days (app_key, fingerprint, day, events)
    select app_key, fingerprint, (timestamp / 86400000)::int4, count(*) from events group by 1, 2, 3`.execute(db);

  await db.schema
    .createTable('issue_facets')
    .addColumn('app_key', 'text', (col) => col.notNull().references('apps.app_key').onDelete('cascade'))
    // 'release' or 'environment'
    .addColumn('facet', 'text', (col) => col.notNull())
    .addColumn('value', 'text', (col) => col.notNull())
    .addColumn('fingerprint', 'text', (col) => col.notNull())
    // In this order the key also finds an app's issues with a given release or environment.
    .addPrimaryKeyConstraint('issue_facets_pkey', ['app_key', 'facet', 'value', 'fingerprint'])
    .execute();
  await sql`
    insert into issue_facets (app_key, facet, value, fingerprint)
    select distinct e.app_key, f.facet, f.value, e.fingerprint from events e
    cross join lateral (values ('release', e.payload->>'release'), ('environment', e.payload->>'environment')) f(facet, value)
    where f.value is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('issue_facets').ifExists().execute();
  await db.schema.dropTable('issue_days').ifExists().execute();
  for (const column of [
    'status',
    'status_changed_at',
    'regressed_at',
    'regressed_by_last_write',
    'culprit',
    'level',
    'last_release',
    'type',
    'search_text',
  ]) {
    await db.schema.alterTable('issues').dropColumn(column).execute();
  }
}
