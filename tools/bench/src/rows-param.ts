// `pnpm --filter @collector/bench rows-param`: how the write statement's rows reach pg's Bind message, the way the
// collector sends them (a JsonbArray of each row's text, written into one reused buffer) against the way it did before
// b6c239c (one JSON string a batch, the group's strings joined into one), in one process, alternating rounds. Both
// start from the same row objects and end in pg-protocol's own Bind message, so what differs is only the strings and
// buffers made on the way (docs/performance.md, "Fresh memory"). No database.
//
//   pnpm --filter @collector/bench rows-param [--batches-per-statement 20] [--statements 20] [--rounds 12]
import { createRequire } from 'node:module';
import { JsonbArray, prepareBatch } from '@collector/db';
import { judgeEvent } from '@collector/domain';
import { createEventSource, parseFlags, percentile } from '@collector/tool-kit';

const usage = 'pnpm --filter @collector/bench rows-param [--batches-per-statement 20] [--statements 20] [--rounds 12]';
const { number } = parseFlags(usage, {
  'batches-per-statement': { type: 'string', default: '20' },
  statements: { type: 'string', default: '20' },
  rounds: { type: 'string', default: '12' },
});
const perStatement = number('batches-per-statement', 1, 1_000);
const statements = number('statements', 1, 1_000);
const rounds = number('rounds', 3, 100);

// pg's own serializer and value mapper, from pg's dependencies (pnpm keeps them out of this package's reach).
const fromPg = createRequire(createRequire(import.meta.url).resolve('pg'));
const { serialize } = fromPg('pg-protocol') as {
  serialize: { bind(config: { values: unknown[]; valueMapper?: (value: unknown) => unknown }): Buffer };
};
const { prepareValue } = fromPg('./utils') as { prepareValue: (value: unknown) => unknown };

// The rows of bench batches as objects, what eventRow makes (read back from the collector's own row texts).
const source = createEventSource({});
const receivedAt = Date.now();
const batches = Array.from({ length: perStatement * statements }, () => {
  const events = (JSON.parse(source.batch('app_rows')) as { events: unknown[] }).events.map((raw) => {
    const verdict = judgeEvent(raw, { appKey: 'app_rows', receivedAt });
    if (!verdict.ok) throw new Error(verdict.message);
    return verdict.event;
  });
  return prepareBatch({ appKey: 'app_rows', events, receivedAt }).rows.map((row) => JSON.parse(row) as unknown);
});
const eventCount = batches.reduce((sum, rows) => sum + rows.length, 0);

const bind = (rows: unknown) => serialize.bind({ values: [rows, '[]', '0'], valueMapper: prepareValue }).length;

const ways = {
  'before: a string a batch, joined': (group: unknown[][]) => {
    const texts = group.map((rows) => JSON.stringify(rows).slice(1, -1));
    return bind(`[${texts.join(',')}]`);
  },
  'now: a JsonbArray of row texts': (group: unknown[][]) =>
    bind(new JsonbArray(group.flatMap((rows) => rows.map((row) => JSON.stringify(row))))),
};

const took = new Map<string, number[]>(Object.keys(ways).map((name) => [name, []]));
for (let round = 0; round < rounds; round++) {
  for (const [name, way] of Object.entries(ways)) {
    const started = performance.now();
    let bytes = 0;
    for (let from = 0; from < batches.length; from += perStatement)
      bytes += way(batches.slice(from, from + perStatement));
    if (bytes === 0) throw new Error('nothing serialised');
    // The first two rounds warm up.
    if (round >= 2) took.get(name)?.push(((performance.now() - started) * 1000) / eventCount);
  }
}

const median = (values: number[]) => percentile(values, 50);
console.log(
  `${rounds - 2} rounds (after 2 of warm-up) of ${statements} statements of ${perStatement} batches (${eventCount} events), alternating; µs per event`,
);
const [before, now] = [...took.values()].map(median) as [number, number];
for (const [name, values] of took) console.log(`  ${name.padEnd(36)} median ${median(values).toFixed(1).padStart(6)}`);
console.log(`  now / before: ${(now / before).toFixed(2)}x`);
