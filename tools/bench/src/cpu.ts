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
import { stageClock } from './stage-clock';

const { number } = parseFlags('pnpm --filter @collector/bench cpu [--batches 2000] [--rounds 5]', {
  batches: { type: 'string', default: '2000' },
  rounds: { type: 'string', default: '5' },
});
const batchCount = number('batches', 10, 1_000_000);
const rounds = number('rounds', 1, 100);

const source = createEventSource({});
const bodies = Array.from({ length: batchCount }, () => Buffer.from(source.batch('app_cpu')));
const events = batchCount * source.batchSize;

/** Runs `each` over every body; within it, `lap(i)` adds the time since the previous lap to stage i. */
function time(stageCount: number, each: (body: Buffer, lap: (stage: number) => void) => void): number[] {
  const took = new Array<number>(stageCount).fill(0);
  const clock = stageClock(took);
  for (const body of bodies) {
    clock.start();
    each(body, clock.lap);
  }
  return took;
}

// The collector: body-parser's JSON.parse of the body as text, the nesting cut, each event judged, the batch prepared.
const collectorStages = ['JSON.parse', 'pruneNesting', 'judgeEvent', 'prepareBatch'];
const timeCollector = () =>
  time(collectorStages.length, (body, lap) => {
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
    if (prepared.keys.length !== accepted.length) throw new Error('prepareBatch lost rows');
    lap(3);
  });

// The baseline: its JSON.parse, then its rows (baseline-columns.ts, the code its server runs).
const baselineStages = ['JSON.parse', 'toRows'];
const timeBaseline = () =>
  time(baselineStages.length, (body, lap) => {
    const batch = JSON.parse(body.toString('utf8')) as { appKey: string; events: RawEvent[] };
    lap(0);
    const rows = toRows(batch.events);
    if (rows.length < batch.events.length) throw new Error('toRows lost rows');
    lap(1);
  });

const fmt = (us: number) => (us / events).toFixed(1).padStart(7);
console.log(
  `${batchCount} batches of ${source.batchSize} events (~${source.averageEventBytes} B each), ${rounds} rounds; µs per event, best round (GC included)`,
);
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
for (const [i, name] of collectorStages.entries()) console.log(`  ${name.padEnd(14)} ${fmt(collector[i] ?? 0)}`);
const collectorTotal = collector.reduce((a, b) => a + b, 0);
console.log(`  ${'total'.padEnd(14)} ${fmt(collectorTotal)}`);
console.log('baseline');
for (const [i, name] of baselineStages.entries()) console.log(`  ${name.padEnd(14)} ${fmt(baseline[i] ?? 0)}`);
const baselineTotal = baseline.reduce((a, b) => a + b, 0);
console.log(`  ${'total'.padEnd(14)} ${fmt(baselineTotal)}`);
console.log(`collector/baseline Node work per event: ${(collectorTotal / baselineTotal).toFixed(2)}x`);
