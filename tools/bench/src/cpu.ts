// `pnpm --filter @collector/bench cpu`: the Node side of ingestion, stage by stage, in one process and without a
// database or a socket, against the bare baseline's own Node work (baseline-columns.ts) in the same run. It tells
// which stage a change to validation, fingerprinting or serialisation moved, in µs per event; the whole server's figure
// is `pnpm bench` (cpu µs/event per round).
//
//   pnpm --filter @collector/bench cpu [--batches 2000] [--rounds 5]
import { type Batch, prepareBatch } from '@collector/db';
import { judgeEvent, limits, pruneNesting, type StoredEvent } from '@collector/domain';
import { createEventSource, parseFlags } from '@collector/tool-kit';
import { type RawEvent, toRows } from './baseline-columns';

const { number } = parseFlags('pnpm --filter @collector/bench cpu [--batches 2000] [--rounds 5]', {
  batches: { type: 'string', default: '2000' },
  rounds: { type: 'string', default: '5' },
});
const batchCount = number('batches', 10, 1_000_000);
const rounds = number('rounds', 1, 100);

const source = createEventSource({});
const bodies = Array.from({ length: batchCount }, () => Buffer.from(source.batch('app_cpu')));
const events = batchCount * source.batchSize;

type Stage = { name: string; run(body: Buffer): void };

// The collector: body-parser's JSON.parse of the body as text, the nesting cut, each event judged, the batch prepared.
let parsed: { appKey: string; events: unknown[] }[] = [];
let judged: StoredEvent[][] = [];
const collectorStages: Stage[] = [
  { name: 'JSON.parse', run: (body) => void parsed.push(JSON.parse(body.toString('utf8'))) },
  { name: 'pruneNesting', run: () => void 0 },
  { name: 'judgeEvent', run: () => void 0 },
  { name: 'prepareBatch', run: () => void 0 },
];

function timeCollector(): number[] {
  const took = [0, 0, 0, 0];
  parsed = [];
  judged = [];
  let t = process.hrtime.bigint();
  const lap = (i: number) => {
    const now = process.hrtime.bigint();
    took[i] = (took[i] ?? 0) + Number(now - t) / 1000;
    t = now;
  };
  for (const body of bodies) {
    t = process.hrtime.bigint();
    const batch = JSON.parse(body.toString('utf8')) as { appKey: string; events: unknown[] };
    lap(0);
    pruneNesting(batch, limits.nestingDepth + 3);
    lap(1);
    const accepted: StoredEvent[] = [];
    for (const raw of batch.events) {
      const verdict = judgeEvent(raw, { appKey: batch.appKey, receivedAt: Date.now() });
      if (verdict.ok) accepted.push(verdict.event);
    }
    lap(2);
    const prepared = prepareBatch({ appKey: batch.appKey, events: accepted, receivedAt: Date.now() } satisfies Batch);
    if (prepared.rows.length !== accepted.length) throw new Error('prepareBatch lost rows');
    lap(3);
  }
  return took;
}

function timeBaseline(): number[] {
  const took = [0, 0];
  for (const body of bodies) {
    let t = process.hrtime.bigint();
    const batch = JSON.parse(body.toString('utf8')) as { appKey: string; events: RawEvent[] };
    let now = process.hrtime.bigint();
    took[0] = (took[0] ?? 0) + Number(now - t) / 1000;
    t = now;
    const rows = toRows(batch.events);
    if (rows.length < batch.events.length) throw new Error('toRows lost rows');
    now = process.hrtime.bigint();
    took[1] = (took[1] ?? 0) + Number(now - t) / 1000;
  }
  return took;
}

const fmt = (us: number) => (us / events).toFixed(1).padStart(7);
console.log(`${batchCount} batches of ${source.batchSize} events (~${source.averageEventBytes} B each), ${rounds} rounds; µs per event, best round (GC included)`);
const best = (runs: number[][]) => runs[0]?.map((_, i) => Math.min(...runs.map((run) => run[i] ?? Infinity))) ?? [];
const collectorRuns: number[][] = [];
const baselineRuns: number[][] = [];
for (let round = 0; round < rounds; round++) {
  // Alternate, so the machine's drift touches both alike.
  baselineRuns.push(timeBaseline());
  collectorRuns.push(timeCollector());
}
const collector = best(collectorRuns);
const baseline = best(baselineRuns);
console.log('collector');
collectorStages.forEach((stage, i) => console.log(`  ${stage.name.padEnd(14)} ${fmt(collector[i] ?? 0)}`));
const collectorTotal = collector.reduce((a, b) => a + b, 0);
console.log(`  ${'total'.padEnd(14)} ${fmt(collectorTotal)}`);
console.log('baseline');
console.log(`  ${'JSON.parse'.padEnd(14)} ${fmt(baseline[0] ?? 0)}`);
console.log(`  ${'toRows'.padEnd(14)} ${fmt(baseline[1] ?? 0)}`);
const baselineTotal = baseline.reduce((a, b) => a + b, 0);
console.log(`  ${'total'.padEnd(14)} ${fmt(baselineTotal)}`);
console.log(`collector/baseline Node work per event: ${(collectorTotal / baselineTotal).toFixed(2)}x`);
