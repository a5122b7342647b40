// `pnpm --filter @collector/bench versus --against DIR`: one Sentry envelope event's work in this tree against another
// checkout of the collector (DIR, installed with pnpm), both loaded into one process and run in alternating rounds, so
// that a machine whose speed drifts (shared, or throttled) touches both alike. `pnpm bench --sentry` run twice, once per
// tree, moved by 2x between runs of the same code on such a machine; this compares what it cannot.
//
// Two parts, each per envelope event (one @sentry/browser-shaped event, as `pnpm bench --sentry` sends it):
//   node      the envelope parsed, the Sentry event mapped, judged, and its row serialised (prepareBatch): what the
//             collector's process does between the body's bytes and the write statement
//   postgres  the tree's write statement for groups of `--group` such events (one statement each, on one connection,
//             one after another), on a fresh database of its own migrated by the tree, plus its ledger's fold every
//             `--fold-every` statements: PostgreSQL's time with the round trip, the wall clock of each call
//
// --batches compares the batch endpoint's work instead: 50-event bodies as `pnpm bench` sends them, parsed, each event
// judged, each body's rows serialised; statements of `--group` events (rounded to whole bodies). --store compares the
// /store/ endpoint's: the same events one a body, gzipped, read from a request that arrived whole (readStoreBody).
//
// --explain [RATE] adds where the write statement's time goes, part by part (its CTEs): auto_explain logs the plans of
// that share of statements (0.02) with actual times to the server's log (--pg-log, or Debian's), and the top node of
// each part is summed, per statement, for each tree. A part's time includes the earlier parts it was first to read.
//
//   pnpm --filter @collector/bench versus --against ../old [--rounds 8] [--events 2000] [--group 16] [--fold-every 25]
//     [--pg-url postgres://postgres@127.0.0.1:5432/postgres] [--parts node,postgres] [--explain 0.02] [--pg-log FILE]
//     [--batches | --store]
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { createEventSource, parseFlags, percentile } from '@collector/tool-kit';
import pg from 'pg';
import { browserSdk, envelopeBody, sentryEventSource } from './sentry';
import { stageClock } from './stage-clock';
import { findPgLog } from './workers';

const usage =
  'pnpm --filter @collector/bench versus --against DIR [--rounds 8] [--events 2000] [--group 16] [--fold-every 25] [--pg-url URL] [--parts node,postgres] [--explain RATE] [--pg-log FILE] [--batches | --store]';
const { flags, number } = parseFlags(usage, {
  against: { type: 'string' },
  rounds: { type: 'string', default: '8' },
  events: { type: 'string', default: '2000' },
  group: { type: 'string', default: '16' },
  'fold-every': { type: 'string', default: '25' },
  'pg-url': { type: 'string', default: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  parts: { type: 'string', default: 'node,postgres' },
  explain: { type: 'string' },
  'pg-log': { type: 'string' },
  batches: { type: 'boolean', default: false },
  store: { type: 'boolean', default: false },
});
if (!flags.against) {
  console.error(`--against DIR is required\n\n${usage}`);
  process.exit(2);
}
const rounds = number('rounds', 1, 100);
const eventsPerRound = number('events', 10, 100_000);
const groupSize = number('group', 1, 2_000);
const foldEvery = number('fold-every', 1, 10_000);
const parts = new Set(flags.parts.split(','));
const explainRate = flags.explain === undefined ? 0 : number('explain', 0.001, 1);

// Each tree's own modules, by path: its dependencies resolve from its own node_modules. Typed loosely on purpose: the
// other tree's signatures are whatever they were then (the calls below use what both share).
// biome-ignore lint/suspicious/noExplicitAny: another checkout's modules, typed by nothing in this one
type Module = any;
interface Tree {
  name: string;
  dir: string;
  envelope: Module;
  domain: Module;
  db: Module;
}

async function loadTree(name: string, dir: string): Promise<Tree> {
  const from = (path: string) => import(resolve(dir, path));
  return {
    name,
    dir,
    envelope: await from('services/collector/src/sentry/envelope.ts'),
    domain: await from('packages/domain/src/index.ts'),
    db: await from('packages/db/src/index.ts'),
  };
}

const here = resolve(import.meta.dirname, '../../..');
const trees = [await loadTree('against', resolve(flags.against)), await loadTree('this', here)];

// The envelopes: the same bytes for both trees, as `pnpm bench --sentry` sends them (its event source and format).
const nextEvent = sentryEventSource(createEventSource({}));
const client = `${browserSdk.name}/${browserSdk.version}`;

/**
 * A body format: one round's bodies (new event ids every round, so the write statement never finds a duplicate), and
 * how a tree reads one before judging: parsed (the first stage), then mapped to the collector's events (the second).
 */
interface Format {
  name: string;
  stages: readonly [string, string];
  source: 'sentry' | 'batch';
  eventsPerBody: number;
  bodies: () => Buffer[];
  parse: (tree: Tree, body: Buffer) => Module | Promise<Module>;
  map: (tree: Tree, parsed: Module, receivedAt: number) => unknown[];
}

const envelopeFormat: Format = {
  name: 'envelope',
  stages: ['parse envelope', 'map Sentry event'],
  source: 'sentry',
  eventsPerBody: 1,
  bodies: () => Array.from({ length: eventsPerRound }, () => Buffer.from(envelopeBody(nextEvent()))),
  parse: (tree, body) => {
    const parser = new tree.envelope.EnvelopeParser();
    parser.push(body);
    return parser.end();
  },
  map: (tree, envelope, receivedAt) =>
    envelope.events.map(({ eventId, event }: Module) =>
      tree.domain.fromSentryEvent(event, { receivedAt, eventId, client }),
    ),
};

// --batches: 50-event bodies of the batch endpoint instead, as `pnpm bench` sends them.
const batchSource = createEventSource({});
const batchFormat: Format = {
  name: 'batch (50 a body)',
  stages: ['parse body', '(no mapping)'],
  source: 'batch',
  eventsPerBody: batchSource.batchSize,
  bodies: () =>
    Array.from({ length: Math.ceil(eventsPerRound / batchSource.batchSize) }, () =>
      Buffer.from(batchSource.batch('web_versus')),
    ),
  parse: (_tree, body) => JSON.parse(body.toString('utf8')),
  map: (_tree, parsed) => parsed.events,
};

// --store: the same events, each gzipped JSON as python's sentry-sdk posts to /store/, read from a request whose body
// arrived with its headers (as a small one does) by the tree's readStoreBody, decompression included.
const storeRequest = (body: Buffer) =>
  Object.assign(Readable.from([body], { objectMode: false }), {
    headers: { 'content-encoding': 'gzip', 'content-length': String(body.length) },
    complete: true,
  });
const storeFormat: Format = {
  ...envelopeFormat,
  name: 'gzipped store',
  stages: ['read store body', 'map Sentry event'],
  bodies: () => Array.from({ length: eventsPerRound }, () => gzipSync(JSON.stringify(nextEvent()))),
  parse: (tree, body) => tree.envelope.readStoreBody(storeRequest(body)),
};

const format = flags.batches ? batchFormat : flags.store ? storeFormat : envelopeFormat;
const nodeStages = [...format.stages, 'judge', 'prepareBatch'] as const;

/** The tree's Node work for each body, stage by stage (µs in all); returns the prepared batches, one a body. */
async function nodeWork(tree: Tree, bodies: readonly Buffer[], appKey: string, took: number[]): Promise<Module[]> {
  const { judgeEvent } = tree.domain;
  const { prepareBatch } = tree.db;
  const prepared: Module[] = [];
  const { start, lap } = stageClock(took);
  for (const body of bodies) {
    start();
    const receivedAt = Date.now();
    const parsed = await format.parse(tree, body);
    lap(0);
    const raws = format.map(tree, parsed, receivedAt);
    lap(1);
    const events = [];
    for (const raw of raws) {
      const verdict = judgeEvent(raw, { appKey, receivedAt, source: format.source, storeIp: true });
      if (!verdict.ok) throw new Error(`${tree.name}: an event was rejected: ${verdict.message}`);
      events.push(verdict.event);
    }
    lap(2);
    prepared.push(prepareBatch({ appKey, events, receivedAt }));
    lap(3);
  }
  return prepared;
}

/** A fresh database for the tree, migrated by it, with an account and one app (as its write-path tests make them). */
async function treeDatabase(tree: Tree, admin: pg.Client) {
  const name = `bench_versus_${tree.name}_${randomBytes(4).toString('hex')}`;
  await admin.query(`create database "${name}"`);
  if (pgLog) {
    // auto_explain on a sample of the statements: their plans, with actual times, go to the server's log.
    for (const setting of [
      `session_preload_libraries = 'auto_explain'`,
      'auto_explain.log_min_duration = 0',
      'auto_explain.log_analyze = on',
      `auto_explain.sample_rate = ${explainRate}`,
    ])
      await admin.query(`alter database "${name}" set ${setting}`);
  }
  const url = new URL(flags['pg-url']);
  url.pathname = `/${name}`;
  const database = await tree.db.openDatabase({ url: url.toString(), maxConnections: 2 });
  await tree.db.migrateToLatest(database.db);
  const userId = `user_${tree.name}`;
  await database.db
    .insertInto('users')
    .values({ id: userId, email: `${userId}@example.com`, password_hash: '-', created_at: 0 })
    .execute();
  const orgId = `org-${tree.name}`;
  await database.db
    .insertInto('organizations')
    .values({ id: orgId, slug: orgId, name: orgId, created_at: 0 })
    .execute();
  const appKey = `web_versus_${tree.name}`;
  await tree.db.insertApp(database.db, {
    app_key: appKey,
    org_id: orgId,
    slug: appKey.replaceAll('_', '-'),
    user_id: userId,
    name: appKey,
    type: 'web',
    created_at: 0,
    public_key: randomBytes(16).toString('hex'),
  });
  return { name, database, appKey };
}

/** The tree's statements for the prepared batches, `groupSize` events a statement, one after another; µs in all. */
async function postgresWork(
  tree: Tree,
  db: Module,
  prepared: readonly Module[],
  took: { statements: number; folds: number },
  state: { sinceFold: number },
) {
  const perStatement = Math.max(1, Math.round(groupSize / format.eventsPerBody));
  for (let from = 0; from < prepared.length; from += perStatement) {
    const t = process.hrtime.bigint();
    await tree.db.storePreparedBatches(db, prepared.slice(from, from + perStatement));
    took.statements += Number(process.hrtime.bigint() - t) / 1000;
    if (++state.sinceFold >= foldEvery) {
      state.sinceFold = 0;
      const f = process.hrtime.bigint();
      await tree.db.foldCounters(db, { vacuum: false });
      took.folds += Number(process.hrtime.bigint() - f) / 1000;
    }
  }
}

const median = (values: number[]) => percentile(values, 50);
const fmt = (us: number) => us.toFixed(1).padStart(8);

const admin = new pg.Client({ connectionString: flags['pg-url'] });
await admin.connect();
let pgLog: string | undefined;
if (explainRate > 0 && parts.has('postgres')) {
  const { rows } = await admin.query<{ server_version: string }>('show server_version');
  pgLog = findPgLog(flags['pg-log'], rows[0]?.server_version ?? '');
  if (!pgLog) {
    console.error('--explain: no server log found (--pg-log FILE)');
    process.exit(2);
  }
}
const logFrom = pgLog ? statSync(pgLog).size : 0;
const databases = parts.has('postgres') ? await Promise.all(trees.map((tree) => treeDatabase(tree, admin))) : [];
const appKeyOf = (index: number) => databases[index]?.appKey ?? 'web_versus';

const nodeRuns = trees.map((): number[][] => []);
const postgresRuns = trees.map((): { statements: number; folds: number }[] => []);
const foldState = trees.map(() => ({ sinceFold: 0 }));
try {
  // A warm-up round each (JIT, caches, the first statements' plans), then the rounds, alternating which tree goes first.
  for (let round = -1; round < rounds; round++) {
    const bodies = format.bodies();
    const events = bodies.length * format.eventsPerBody;
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const index of order) {
      const tree = trees[index] as Tree;
      const took = new Array<number>(nodeStages.length).fill(0);
      const prepared = await nodeWork(tree, bodies, appKeyOf(index), took);
      if (round >= 0) nodeRuns[index]?.push(took.map((us) => us / events));
      const database = databases[index];
      if (database) {
        const pgTook = { statements: 0, folds: 0 };
        await postgresWork(tree, database.database.db, prepared, pgTook, foldState[index] as { sinceFold: number });
        if (round >= 0)
          postgresRuns[index]?.push({
            statements: pgTook.statements / events,
            folds: pgTook.folds / events,
          });
      }
    }
  }
} finally {
  for (const database of databases) await database.database.close();
  for (const database of databases) await admin.query(`drop database if exists "${database.name}"`);
  await admin.end();
}

console.log(
  `${rounds} rounds of ${eventsPerRound} ${format.name} events, alternating; median of the rounds, µs per event` +
    (databases.length ? `; statements of ${groupSize} events, a fold every ${foldEvery} statements` : ''),
);
console.log(`against: ${trees[0]?.dir}\nthis:    ${trees[1]?.dir}`);
console.log(`${'stage'.padEnd(18)} ${'against'.padStart(8)} ${'this'.padStart(8)}  ratio`);
const row = (label: string, a: number, b: number) =>
  console.log(`${label.padEnd(18)} ${fmt(a)} ${fmt(b)}  ${(b / a).toFixed(2)}x`);
if (parts.has('node')) {
  for (const [stage, label] of nodeStages.entries())
    row(
      label,
      median(nodeRuns[0]?.map((run) => run[stage] ?? 0) ?? []),
      median(nodeRuns[1]?.map((run) => run[stage] ?? 0) ?? []),
    );
  const total = (index: number) => median(nodeRuns[index]?.map((run) => run.reduce((a, b) => a + b, 0)) ?? []);
  row('node, in all', total(0), total(1));
}
if (databases.length) {
  const of = (index: number, pick: (run: { statements: number; folds: number }) => number) =>
    median(postgresRuns[index]?.map(pick) ?? []);
  row(
    'write statement',
    of(0, (r) => r.statements),
    of(1, (r) => r.statements),
  );
  row(
    'fold',
    of(0, (r) => r.folds),
    of(1, (r) => r.folds),
  );
  row(
    'postgres, in all',
    of(0, (r) => r.statements + r.folds),
    of(1, (r) => r.statements + r.folds),
  );
}
if (pgLog) {
  const plans = statementParts(readFileSync(pgLog).subarray(logFrom).toString('utf8'));
  const of = (index: number) => plans.get(databases[index]?.name ?? '') ?? [];
  const [against, mine] = [of(0), of(1)];
  const mean = (list: Map<string, number>[], part: string) =>
    list.reduce((sum, plan) => sum + (plan.get(part) ?? 0), 0) / Math.max(1, list.length);
  console.log(
    `\nthe write statement by part (auto_explain, ${against.length} and ${mine.length} statements sampled): ms per statement`,
  );
  console.log(`${'part'.padEnd(24)} ${'against'.padStart(8)} ${'this'.padStart(8)}  difference`);
  const names = [...new Set([...mine, ...against].flatMap((plan) => [...plan.keys()]))];
  for (const name of names) {
    const [a, b] = [mean(against, name), mean(mine, name)];
    if (Math.max(a, b) >= 0.005)
      console.log(
        `${name.padEnd(24)} ${a.toFixed(3).padStart(8)} ${b.toFixed(3).padStart(8)}  ${(b - a >= 0 ? '+' : '') + (b - a).toFixed(3)}`,
      );
  }
}

/**
 * The write statements' plans in auto_explain's log text, per database: for each, its parts (CTEs) and the actual
 * time of each part's top node (its end, times its loops), in ms; '(statement)' is the whole statement's duration.
 */
function statementParts(log: string): Map<string, Map<string, number>[]> {
  const byDatabase = new Map<string, Map<string, number>[]>();
  let plan: Map<string, number> | undefined;
  let part: string | undefined;
  for (const line of log.split('\n')) {
    const start = /@(\S+) LOG: {2}duration: ([\d.]+) ms {2}plan:/.exec(line);
    if (start) {
      plan = new Map([['(statement)', Number(start[2])]]);
      const list = byDatabase.get(start[1] as string) ?? [];
      list.push(plan);
      byDatabase.set(start[1] as string, list);
      part = undefined;
      continue;
    }
    if (!plan) continue;
    const cte = /^\t\s*CTE (\S+)$/.exec(line);
    if (cte) {
      part = cte[1];
      continue;
    }
    if (part === undefined) continue;
    const actual = /actual time=[\d.]+\.\.([\d.]+) rows=\d+ loops=(\d+)/.exec(line);
    if (actual) plan.set(part, Number(actual[1]) * Number(actual[2]));
    else if (line.includes('never executed')) plan.set(part, 0);
    else continue;
    part = undefined;
  }
  // Only the write statement's plans (the fold's and the set-up's statements are logged too).
  for (const [name, list] of byDatabase)
    byDatabase.set(
      name,
      list.filter((each) => each.has('new_events')),
    );
  return byDatabase;
}
