// `pnpm bench --sentry`'s `mapped` endpoint (issue 22): the envelope traffic again, each event throwing from a bundle
// whose source map is stored (an artifact bundle inserted as the upload API stores one, its debug ID in the event's
// debug_meta), so the collector maps every event at ingestion. Compared with `envelope` in the same run: events/s and
// server CPU per event, with and without maps. The map is synthetic (a one-line bundle of SOURCE_LINES functions) and
// of a realistic size; the bench needs the collector's database, so PostgreSQL only (DATABASE_URL).
import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';

const SOURCE_LINES = 20_000;
const NAMES = 50;
const COLUMN_STEP = 40;
const BUNDLE_URL = 'https://shop.example/static/app.min.js';
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function vlq(value: number): string {
  let rest = value < 0 ? (-value << 1) | 1 : value << 1;
  let text = '';
  do {
    let digit = rest & 31;
    rest >>>= 5;
    if (rest > 0) digit |= 32;
    text += BASE64[digit];
  } while (rest > 0);
  return text;
}

/** A one-line bundle's map: segment i at column i * COLUMN_STEP maps to source line i + 1, naming fn<i % NAMES>. */
function syntheticMap(): string {
  const segments: string[] = [];
  for (let i = 0; i < SOURCE_LINES; i++) {
    const name = i % NAMES;
    const previousName = i === 0 ? 0 : (i - 1) % NAMES;
    segments.push(
      i === 0
        ? `${vlq(0)}${vlq(0)}${vlq(0)}${vlq(2)}${vlq(0)}`
        : `${vlq(COLUMN_STEP)}A${vlq(1)}A${vlq(name - previousName)}`,
    );
  }
  const source = Array.from({ length: SOURCE_LINES }, (_, i) => `  fn${i % NAMES}(order, ${i}); // step ${i}`);
  return JSON.stringify({
    version: 3,
    file: 'app.min.js',
    sources: ['src/app.ts'],
    sourcesContent: [source.join('\n')],
    names: Array.from({ length: NAMES }, (_, i) => `fn${i}`),
    mappings: segments.join(','),
  });
}

/** Stores the bundle for the app's organization, as the upload API would; returns its debug ID. */
export async function insertBenchBundle(databaseUrl: string, appKey: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ org_id: string }>('select org_id from apps where app_key = $1', [appKey]);
    const orgId = rows[0]?.org_id;
    if (!orgId) throw new Error(`app ${appKey} has no organization`);
    const debugId = randomUUID();
    const id = randomUUID();
    const map = Buffer.from(syntheticMap());
    const code = Buffer.from(`!function(){/* ${SOURCE_LINES} functions */}();\n//# debugId=${debugId}\n`);
    const now = Date.now();
    await client.query(
      `insert into artifact_bundles (id, org_id, checksum, state, detail, release, dist, chunks, size, file_count,
        created_at, last_used_at) values ($1, $2, $3, 'ok', null, null, null, '[]', $4, 2, $5, $5)`,
      [id, orgId, createHash('sha1').update(id).digest('hex'), code.length + map.length, now],
    );
    await client.query(
      `insert into artifact_files (bundle_id, org_id, path, url, type, debug_id, sourcemap, content, size) values
        ($1, $2, 'files/_/_/app.min.js', '~/static/app.min.js', 'minified_source', $3, 'app.min.js.map', $4, $5),
        ($1, $2, 'files/_/_/app.min.js.map', '~/static/app.min.js.map', 'source_map', $3, null, $6, $7)`,
      [id, orgId, debugId, code, code.length, map, map.length],
    );
    return debugId;
  } finally {
    await client.end();
  }
}

/** The envelope events again, each one's frames in the bundle (five, at mapped positions) and its debug image. */
export function withBundleFrames(next: () => Record<string, unknown>, debugId: string): () => Record<string, unknown> {
  let n = 0;
  return () => {
    const event = next();
    const exception = (event.exception as { values: Array<Record<string, unknown>> }).values[0] as Record<
      string,
      unknown
    >;
    // Twenty call sites in turn: twenty issues, as an app has a few, rather than one per event.
    const start = ((n++ % 20) * 997) % (SOURCE_LINES - 5);
    exception.stacktrace = {
      frames: Array.from({ length: 5 }, (_, i) => ({
        function: `x${i}`,
        filename: BUNDLE_URL,
        lineno: 1,
        colno: (start + 4 - i) * COLUMN_STEP + 1,
        in_app: true,
      })),
    };
    event.debug_meta = { images: [{ type: 'sourcemap', code_file: BUNDLE_URL, debug_id: debugId }] };
    return event;
  };
}

/** What symbolication did to the stored events, by state ("none": events it did not apply to). */
export async function symbolicationStates(databaseUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ state: string; n: string }>(
      `select coalesce(payload->'symbolication'->>'state', 'none') as state, count(*)::int8::text as n
       from events group by 1 order by 1`,
    );
    return rows.map(({ state, n }) => `${state} ${n}`).join(', ');
  } finally {
    await client.end();
  }
}
