// Source maps for the symbolication tests: an app built and minified by esbuild, thrown from in node's vm under the
// URL a browser would load it from (its V8 stack read into Sentry's frames, as @sentry/browser sends them), and a bundle
// stored exactly as the upload API stores one (artifact_bundles and artifact_files, migration 0022).
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { sql } from '@collector/db';
import { esbuild } from './esbuild';
import type { TestServer } from './harness';

const APP_URL = 'http://shop.example/static/app.min.js';

/** The app's source: checkout() calls applyDiscount(), which throws; `extra` adds code that renames minified names. */
export function appSource(extra = ''): string {
  return `${extra}
export function checkout(cart) {
  const total = cart.items.length;
  return applyDiscount(cart, total);
}

function applyDiscount(cart, total) {
  if (total > 0) {
    throw new Error('discount code expired: ' + cart.code);
  }
  return total;
}
`;
}

export interface BuiltApp {
  source: string;
  code: string;
  map: string;
  debugId: string;
}

/** The app bundled as an IIFE, minified, with its map (sourcesContent included) and a debug ID as sentry-cli injects. */
export async function buildApp(source = appSource()): Promise<BuiltApp> {
  const dir = await mkdtemp(join(tmpdir(), 'collector-app-'));
  try {
    // In a folder of its own, so that the map names the source as given: src/checkout.js.
    await esbuild(
      [
        '--bundle',
        '--minify',
        '--format=iife',
        '--global-name=shop',
        '--sourcemap=external',
        '--sourcefile=src/checkout.js',
        '--loader=js',
        '--outfile=app.min.js',
      ],
      { cwd: dir, stdin: source },
    );
    const [code, map] = await Promise.all([
      readFile(join(dir, 'app.min.js'), 'utf8'),
      readFile(join(dir, 'app.min.js.map'), 'utf8'),
    ]);
    return { source, code, map, debugId: randomUUID() };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs the bundle under APP_URL and returns its error's frames as @sentry/browser sends them (outermost first). */
function throwFrom(app: BuiltApp): Array<Record<string, unknown>> {
  const context: Record<string, unknown> = {};
  runInNewContext(app.code, context, { filename: APP_URL });
  let stack = '';
  try {
    runInNewContext('shop.checkout({ items: [1, 2], code: "SPRING" })', context, { filename: 'http://shop.example/' });
  } catch (error) {
    stack = (error as Error).stack ?? '';
  }
  const frames: Array<Record<string, unknown>> = [];
  for (const line of stack.split('\n')) {
    const match = /at (?:(\S+) \()?(http:\/\/shop\.example\/static\/app\.min\.js):(\d+):(\d+)\)?$/.exec(line.trim());
    if (!match) continue;
    frames.push({
      ...(match[1] && { function: match[1] }),
      filename: match[2],
      lineno: Number(match[3]),
      colno: Number(match[4]),
      in_app: true,
    });
  }
  return frames.reverse();
}

/** A browser-shaped Sentry event throwing from the bundle, with the bundle's debug image unless told otherwise. */
export function browserEvent(
  app: BuiltApp,
  options: { debugImage?: boolean; release?: string; dist?: string } = {},
): Record<string, unknown> {
  return {
    event_id: randomUUID().replaceAll('-', ''),
    timestamp: Date.now() / 1000,
    platform: 'javascript',
    ...(options.release && { release: options.release }),
    ...(options.dist && { dist: options.dist }),
    exception: {
      values: [{ type: 'Error', value: 'discount code expired: SPRING', stacktrace: { frames: throwFrom(app) } }],
    },
    ...(options.debugImage !== false && {
      debug_meta: { images: [{ type: 'sourcemap', code_file: APP_URL, debug_id: app.debugId }] },
    }),
  };
}

export const envelope = (event: Record<string, unknown>) =>
  `${JSON.stringify({ event_id: event.event_id })}\n{"type":"event"}\n${JSON.stringify(event)}\n`;

/**
 * Stores a bundle as the upload API would once assembled: the minified file and its map under `~/static/`, the
 * `debug-id` and `sourcemap` headers, state ok, release and dist. `map` may be replaced (a broken or huge one).
 */
export async function insertBundle(
  server: TestServer,
  appKey: string,
  app: BuiltApp,
  options: { release?: string; dist?: string; map?: string } = {},
): Promise<string> {
  const { db } = server.database;
  const { org_id: orgId } = await db
    .selectFrom('apps')
    .select('org_id')
    .where('app_key', '=', appKey)
    .executeTakeFirstOrThrow();
  const map = Buffer.from(options.map ?? app.map);
  const code = Buffer.from(`${app.code}\n//# debugId=${app.debugId}\n`);
  const id = randomUUID();
  const now = Date.now();
  await db
    .insertInto('artifact_bundles')
    .values({
      id,
      org_id: orgId as string,
      checksum: createHash('sha1').update(id).digest('hex'),
      state: 'ok',
      detail: null,
      release: options.release ?? null,
      dist: options.dist ?? null,
      chunks: JSON.stringify([]),
      size: code.length + map.length,
      file_count: 2,
      created_at: now,
      last_used_at: now - 2 * 60 * 60 * 1000,
    })
    .execute();
  await db
    .insertInto('artifact_files')
    .values([
      {
        bundle_id: id,
        org_id: orgId as string,
        path: 'files/_/_/app.min.js',
        url: '~/static/app.min.js',
        type: 'minified_source',
        debug_id: app.debugId,
        sourcemap: 'app.min.js.map',
        content: code,
        size: code.length,
      },
      {
        bundle_id: id,
        org_id: orgId as string,
        path: 'files/_/_/app.min.js.map',
        url: '~/static/app.min.js.map',
        type: 'source_map',
        debug_id: app.debugId,
        sourcemap: null,
        content: map,
        size: map.length,
      },
    ])
    .execute();
  return id;
}

export async function bundleLastUsed(server: TestServer, id: string): Promise<number> {
  const row = await sql<{ last_used_at: string }>`select last_used_at from artifact_bundles where id = ${id}`.execute(
    server.database.db,
  );
  return Number(row.rows[0]?.last_used_at);
}
