#!/usr/bin/env node
// Builds the dashboard into dist/ when dist is missing or older than its sources (`--force`: always).
// `pnpm start` runs it before the service, so a fresh clone serves the dashboard with no extra step.
//
// Fresh means: dist/.build.json records the newest modification time among the inputs when the build
// started, and that is still the newest. The build goes to a temporary folder that then replaces dist, so a
// running collector never serves half a build, and two builds at once do not mix their files.
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dashboard = join(dirname(fileURLToPath(import.meta.url)), '..');
const repository = join(dashboard, '..', '..');
const dist = join(dashboard, 'dist');
const stampFile = join(dist, '.build.json');

// Everything that ends up in the bundle: the dashboard's own files, the typed client it imports, the lockfile
// (a dependency upgrade changes the output too).
const inputs = [
  join(dashboard, 'index.html'),
  join(dashboard, 'vite.config.ts'),
  join(dashboard, 'package.json'),
  join(dashboard, 'tsconfig.json'),
  join(dashboard, 'src'),
  join(dashboard, 'public'),
  join(repository, 'packages', 'client', 'src'),
  join(repository, 'packages', 'client', 'package.json'),
  join(repository, 'pnpm-lock.yaml'),
];

function newestModification(path) {
  let stats;
  try {
    stats = statSync(path);
  } catch {
    return 0;
  }
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = stats.mtimeMs; // a deleted file shows up as its folder's change
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestModification(join(path, entry)));
  return newest;
}

function recordedModification() {
  try {
    if (!existsSync(join(dist, 'index.html'))) return undefined;
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
  `dashboard: ${force ? 'building' : existsSync(dist) ? 'sources changed, rebuilding' : 'not built yet, building'} (services/dashboard/dist)`,
);
const staging = join(dashboard, `.dist-building-${process.pid}`);
// A production build whatever NODE_ENV the caller has: under vitest (NODE_ENV=test) Vite would bundle React's
// development build, whose StrictMode runs every effect, and so every call, twice.
process.env.NODE_ENV = 'production';
try {
  const { build } = await import('vite');
  await build({
    root: dashboard,
    configFile: join(dashboard, 'vite.config.ts'),
    mode: 'production',
    logLevel: 'warn',
    build: { outDir: staging, emptyOutDir: true },
  });
  writeFileSync(
    join(staging, '.build.json'),
    `${JSON.stringify({ sourcesModifiedAt, builtAt: new Date().toISOString() })}\n`,
  );
  rmSync(dist, { recursive: true, force: true });
  try {
    renameSync(staging, dist);
  } catch (error) {
    // Another build finished first and put its dist in place: it was built from the same sources.
    if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
  }
} catch (error) {
  console.error(`dashboard: the build failed: ${error?.message ?? error}`);
  process.exitCode = 1;
} finally {
  rmSync(staging, { recursive: true, force: true });
}
if (!process.exitCode) console.log(`dashboard: built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
