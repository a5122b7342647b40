#!/usr/bin/env node
// Copies the built collector and what it needs at run time into a folder of its own, to run elsewhere (the Dockerfile's
// runtime stage; test/bundle.test.ts):
//
//   <target>/collector        dist/ (the bundle, built first if missing or stale), package.json and node_modules with
//                             the service's production dependencies only: `pnpm deploy --prod`
//   <target>/dashboard/dist   the dashboard's build, when it is built (`pnpm build`): the service serves it from
//                             ../dashboard/dist beside its own folder, as in the checkout
//
// Then `node dist/main.mjs` in <target>/collector starts it; nothing in the copy refers to this checkout. Run after
// `pnpm install` (the packages come from pnpm's store, offline).
//
//   node services/collector/scripts/deploy.mjs <target>
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const service = join(dirname(fileURLToPath(import.meta.url)), '..');
const repository = join(service, '..', '..');
const dashboardDist = join(repository, 'services', 'dashboard', 'dist');

const [argument] = process.argv.slice(2);
if (!argument) {
  console.error('usage: node services/collector/scripts/deploy.mjs <target folder>');
  process.exit(2);
}
const target = resolve(argument);
if (existsSync(target) && readdirSync(target).length > 0) {
  console.error(`deploy: ${target} is not empty`);
  process.exit(1);
}

try {
  execFileSync(process.execPath, [join(service, 'scripts', 'ensure-built.mjs')], { stdio: 'inherit' });

  // pnpm 10 deploys from a workspace with injected workspace packages: each @collector/* dependency becomes a copy of
  // its files in the target's node_modules, not a link back here. The lockfile is used as it is (no resolution).
  const collector = join(target, 'collector');
  execFileSync(
    'pnpm',
    [
      '--config.inject-workspace-packages=true',
      '--filter',
      '@collector/service',
      'deploy',
      '--prod',
      '--offline',
      collector,
    ],
    { cwd: repository, stdio: 'inherit' },
  );

  // The bundle must not name a file of this checkout (ensure-built.mjs keeps it so): the copy would load it from here.
  const checkoutPaths = ['node_modules', 'packages', 'services'].map((folder) => join(repository, folder));
  for (const file of readdirSync(join(collector, 'dist'))) {
    const contents = readFileSync(join(collector, 'dist', file), 'utf8');
    const named = checkoutPaths.find((path) => contents.includes(path));
    if (named) throw new Error(`dist/${file} names ${named}: the copy would not run without this checkout`);
  }

  if (existsSync(join(dashboardDist, 'index.html'))) {
    mkdirSync(join(target, 'dashboard'), { recursive: true });
    cpSync(dashboardDist, join(target, 'dashboard', 'dist'), { recursive: true });
    console.log(`deploy: ${target}/collector and the dashboard (${target}/dashboard/dist)`);
  } else {
    console.log(`deploy: ${target}/collector, without the dashboard (not built: \`pnpm build\` builds it)`);
  }
} catch (error) {
  console.error(`deploy: ${error?.message ?? error}`);
  process.exit(1);
}
