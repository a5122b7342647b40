// pnpm --filter @collector/seed seed [--url http://127.0.0.1:3100 | --database-url postgres://... | --data-dir DIR]
//   [--events 1000000] [--apps 20] [--fingerprints 5000] [--users 300000] [--days 30] [--connections 32] [--out seed.json]
// With --database-url or --data-dir the seed starts a collector of its own on that database (rate limit off) and stops
// it at the end.
import { writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Child, cleanupOnExit, parseFlags, startCollector } from '@collector/tool-kit';
import { seed } from './seed';

const { flags, number } = parseFlags(
  `pnpm --filter @collector/seed seed [--url http://127.0.0.1:3100 | --database-url postgres://... | --data-dir DIR]
  [--events 1000000] [--apps 20] [--fingerprints 5000] [--users 300000] [--days 30] [--connections 32] [--out seed.json]`,
  {
    url: { type: 'string' },
    'database-url': { type: 'string' },
    'data-dir': { type: 'string' },
    events: { type: 'string', default: '1000000' },
    apps: { type: 'string', default: '20' },
    fingerprints: { type: 'string', default: '5000' },
    users: { type: 'string', default: '300000' },
    days: { type: 'string', default: '30' },
    connections: { type: 'string', default: '32' },
    out: { type: 'string' },
  },
);

const targets = [flags.url, flags['database-url'], flags['data-dir']].filter(Boolean);
if (targets.length !== 1) {
  console.error(
    'give exactly one of --url (a running collector), --database-url or --data-dir (the seed starts a collector on it)',
  );
  process.exit(2);
}

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
// pnpm runs the script in tools/seed: relative paths are taken from where the command was typed.
const here = process.env.INIT_CWD ?? process.cwd();
const resolve = (path: string) => (isAbsolute(path) ? path : join(here, path));
const { cleanups, cleanup } = cleanupOnExit('stopping the collector');
let collector: Child | undefined;
let origin = flags.url as string;
try {
  if (!flags.url) {
    const dataDir = flags['data-dir'];
    collector = await startCollector({
      repoRoot,
      env: flags['database-url'] ? { DATABASE_URL: flags['database-url'] } : { DATA_DIR: resolve(dataDir as string) },
    });
    cleanups.push(() => collector?.stop());
    origin = collector.origin;
  }
  console.error(`seeding ${origin}`);
  const result = await seed({
    origin,
    events: number('events', 1, 100_000_000),
    apps: number('apps', 1, 1000),
    fingerprints: number('fingerprints', 1, 10_000_000),
    users: number('users', 1, 100_000_000),
    days: number('days', 1, 3650),
    connections: number('connections', 1, 1000),
    log: (line) => console.error(line),
  });
  console.log(
    `seeded ${result.events} events into ${result.apps.length} apps in ${result.seconds.toFixed(0)} s (${Math.round(result.events / result.seconds)} events/s)`,
  );
  console.log(`account ${result.email}, token ${result.token}`);
  for (const app of result.apps)
    console.log(`  ${app.appKey}  ${app.name}  ${app.events} events, ${app.fingerprints} problems, ${app.users} users`);
  if (flags.out) writeFileSync(resolve(flags.out), `${JSON.stringify(result, null, 2)}\n`);
} finally {
  await cleanup();
}
