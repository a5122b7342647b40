// `pnpm fuzz`: generated hostile requests against a live collector that this command starts as a child process,
// every answer checked against the contract and the served OpenAPI document; prints the counts.
//
//   pnpm fuzz                          10,000 inputs, embedded database in a temp folder
//   pnpm fuzz --inputs 50000 --seed 7  more, reproducibly
//   pnpm fuzz --database-url postgres://postgres@127.0.0.1:5432/fuzz   on PostgreSQL (a database you created)
//   options: --concurrency 8 --only auth.login,events.ingest --examples 5
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanupOnExit, parseFlags, startCollector } from '@collector/tool-kit';
import fc from 'fast-check';
import {
  anyInputArbitrary,
  type Endpoint,
  endpointArbitrary,
  endpoints,
  type Fixtures,
  type FuzzInput,
} from './inputs';
import { ReplyChecker } from './invariants';
import { createAgent, NoReplyError, type RawReply, send } from './transport';

const { flags, number } = parseFlags(
  'pnpm fuzz [--inputs 10000] [--seed N] [--concurrency 8] [--database-url postgres://...] [--only auth.login,events.ingest] [--examples 5]',
  {
    inputs: { type: 'string', default: '10000' },
    seed: { type: 'string' },
    concurrency: { type: 'string', default: '8' },
    'database-url': { type: 'string' },
    only: { type: 'string' },
    examples: { type: 'string', default: '5' },
  },
);

const inputCount = number('inputs', 1, 10_000_000);
const concurrency = number('concurrency', 1, 256);
const seed = flags.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : number('seed', 0, 2 ** 31);
const exampleCount = number('examples', 0, 1000);
const only = flags.only ? (flags.only.split(',') as Endpoint[]) : undefined;
for (const name of only ?? []) {
  if (!endpoints.includes(name)) {
    console.error(`--only: unknown endpoint ${name}; one of ${endpoints.join(', ')}`);
    process.exit(2);
  }
}

const root = fileURLToPath(new URL('../../..', import.meta.url));
const probe = fileURLToPath(new URL('./pollution-probe.mjs', import.meta.url));
const { cleanups, cleanup } = cleanupOnExit('stopping the collector and removing its folder');
const work = mkdtempSync(join(tmpdir(), 'collector-fuzz-'));
cleanups.push(() => rmSync(work, { recursive: true, force: true }));
const probeFile = join(work, 'pollution.jsonl');

console.log(
  `fuzz: ${inputCount} inputs, seed ${seed}, concurrency ${concurrency}, ${flags['database-url'] ? 'PostgreSQL' : 'embedded database'}`,
);
// Ingestion limits (off in startCollector) would turn most batches into 429s; the login throttle stays as deployed.
const child = await startCollector({
  repoRoot: root,
  nodeArgs: ['--import', probe],
  env: {
    FUZZ_PROBE_FILE: probeFile,
    ...(flags['database-url'] ? { DATABASE_URL: flags['database-url'] } : { DATA_DIR: join(work, 'data') }),
  },
});
cleanups.push(() => child.stop());
let errorLogLines = 0;
child.process.stdout?.on('data', (chunk: Buffer) => {
  errorLogLines += (chunk.toString('utf8').match(/"level":(50|60)/g) ?? []).length;
});

const agent = createAgent(concurrency);
const origin = child.origin;

async function call(
  method: string,
  path: string,
  body?: unknown,
  token?: string,
  // biome-ignore lint/suspicious/noExplicitAny: the answers of many routes, read field by field by the fuzzer
): Promise<{ status: number; json: any }> {
  const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const reply = await send(
    origin,
    { method, path, headers, body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)) },
    { agent },
  );
  return { status: reply.status, json: reply.body.length ? JSON.parse(reply.body.toString('utf8')) : undefined };
}

async function setUp(): Promise<Fixtures> {
  const password = 'a long enough fuzz passphrase';
  const register = async (email: string) => {
    const reply = await call('POST', '/api/auth/register', { email, password });
    if (reply.status !== 201) throw new Error(`register: ${reply.status} ${JSON.stringify(reply.json)}`);
    return reply.json.token as string;
  };
  const createApp = async (token: string) => {
    const reply = await call('POST', '/api/apps', { name: 'Fuzzed', type: 'web' }, token);
    if (reply.status !== 201) throw new Error(`create app: ${reply.status} ${JSON.stringify(reply.json)}`);
    return reply.json.app.appKey as string;
  };
  const email = `fuzz-${seed}@example.com`;
  const token = await register(email);
  const otherToken = await register(`fuzz-other-${seed}@example.com`);
  const spare = await call('POST', '/api/auth/login', { email, password });
  const appKey = await createApp(token);
  const otherAppKey = await createApp(otherToken);
  const event = {
    eventId: `evt_fixture${seed}`,
    type: 'error',
    timestamp: Date.now(),
    errorType: 'TypeError',
    message: 'fixture',
    fingerprint: 'js:fuzz',
  };
  for (const [key, id] of [
    [appKey, event.eventId],
    [otherAppKey, `${event.eventId}x`],
  ] as const) {
    const reply = await call('POST', '/api/events/batch', { appKey: key, events: [{ ...event, eventId: id }] });
    if (reply.status !== 200 || reply.json.accepted !== 1)
      throw new Error(`ingest: ${reply.status} ${JSON.stringify(reply.json)}`);
  }
  return {
    token,
    spareToken: spare.json.token,
    otherToken,
    appKey,
    otherAppKey,
    issueId: `${appKey}:js:fuzz`,
    email,
    password,
  };
}

interface Tally {
  inputs: number;
  byStatus: Map<number, number>;
  fiveHundreds: number;
  noReply: number;
  violations: number;
}

const newTally = (): Tally => ({ inputs: 0, byStatus: new Map(), fiveHundreds: 0, noReply: 0, violations: 0 });
const tallies = new Map<string, Tally>((only ?? endpoints).map((endpoint) => [endpoint, newTally()]));
const problemCounts = new Map<string, number>();
const examples: string[] = [];
const noReplyExamples: string[] = [];

function record(input: FuzzInput, reply: RawReply | undefined, problems: string[], failure?: Error) {
  const tally = tallies.get(input.endpoint) ?? newTally();
  tallies.set(input.endpoint, tally);
  tally.inputs++;
  if (!reply) {
    tally.noReply++;
    if (noReplyExamples.length < exampleCount)
      noReplyExamples.push(
        `${input.endpoint} [${input.kind}] ${input.request.method} ${input.request.path.slice(0, 120)}: ${failure?.message}`,
      );
    return;
  }
  tally.byStatus.set(reply.status, (tally.byStatus.get(reply.status) ?? 0) + 1);
  if (reply.status >= 500) tally.fiveHundreds++;
  if (problems.length === 0) return;
  tally.violations++;
  for (const problem of problems) {
    const category = problem.replace(/: .*$/s, '').slice(0, 120);
    problemCounts.set(category, (problemCounts.get(category) ?? 0) + 1);
  }
  if (examples.length < exampleCount) {
    examples.push(
      `${input.endpoint} [${input.kind}] ${input.request.method} ${input.request.path.slice(0, 200)} ${JSON.stringify(input.request.headers).slice(0, 300)} body ${input.request.body?.byteLength ?? 0} bytes: ${Buffer.from(
        input.request.body ?? [],
      )
        .subarray(0, 200)
        .toString('utf8')}\n` +
        `    -> ${reply.status} ${reply.body.subarray(0, 300).toString('utf8')}\n    ${problems.join('\n    ')}`,
    );
  }
}

const started = Date.now();
const fixtures = await setUp();
const checker = new ReplyChecker((await call('GET', '/api/openapi.json')).json);
const arbitrary = only
  ? fc.oneof(...only.map((endpoint) => endpointArbitrary(endpoint, fixtures)))
  : anyInputArbitrary(fixtures);

const CHUNK = 200;
let sent = 0;
let lastReport = Date.now();
for (let chunk = 0; sent < inputCount && !child.exited(); chunk++) {
  // Generated chunk by chunk: some inputs are megabytes, and 10,000 of them at once would not fit in memory.
  const inputs = fc.sample(arbitrary, { numRuns: Math.min(CHUNK, inputCount - sent), seed: seed + chunk });
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < inputs.length && !child.exited()) {
        const input = inputs[next++] as FuzzInput;
        try {
          const reply = await send(origin, input.request, { agent, timeoutMs: 30_000 });
          record(input, reply, checker.check(input.request, reply));
        } catch (error) {
          if (!(error instanceof NoReplyError)) throw error;
          record(input, undefined, [], error);
        }
      }
    }),
  );
  sent += inputs.length;
  if (Date.now() - lastReport > 10_000) {
    lastReport = Date.now();
    console.log(`  ${sent} sent, ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
}

// Is it still up, and still serving the fixtures' user?
const health = child.exited() ? undefined : await call('GET', '/healthz').catch(() => undefined);
const me = child.exited()
  ? undefined
  : await call('GET', '/api/auth/me', undefined, fixtures.token).catch(() => undefined);
await new Promise((resolve) => setTimeout(resolve, 300)); // one more probe round in the child
const pollution = existsSync(probeFile) ? readFileSync(probeFile, 'utf8').trim().split('\n').filter(Boolean) : [];
const exitedDuringRun = child.exited();
agent.destroy();
await cleanup();

// ---------------------------------------------------------------------------------------------------------------
const seconds = (Date.now() - started) / 1000;
const pad = (text: string | number, width: number) => String(text).padStart(width);
const total = newTally();
console.log(
  `\n${'endpoint'.padEnd(22)}${pad('inputs', 8)}${pad('2xx', 7)}${pad('4xx', 7)}${pad('5xx', 6)}${pad('no reply', 10)}${pad('violations', 12)}  statuses`,
);
for (const [endpoint, tally] of tallies) {
  const count = (from: number, to: number) =>
    [...tally.byStatus].filter(([status]) => status >= from && status < to).reduce((sum, [, n]) => sum + n, 0);
  const statuses = [...tally.byStatus]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status}:${n}`)
    .join(' ');
  console.log(
    `${endpoint.padEnd(22)}${pad(tally.inputs, 8)}${pad(count(200, 300), 7)}${pad(count(400, 500), 7)}${pad(tally.fiveHundreds, 6)}${pad(tally.noReply, 10)}${pad(tally.violations, 12)}  ${statuses}`,
  );
  total.inputs += tally.inputs;
  total.fiveHundreds += tally.fiveHundreds;
  total.noReply += tally.noReply;
  total.violations += tally.violations;
}
console.log(
  `${'total'.padEnd(22)}${pad(total.inputs, 8)}${pad('', 14)}${pad(total.fiveHundreds, 6)}${pad(total.noReply, 10)}${pad(total.violations, 12)}`,
);
console.log(`\ninputs fuzzed: ${total.inputs} in ${seconds.toFixed(1)} s (seed ${seed})`);
console.log(`5xx seen: ${total.fiveHundreds}`);
console.log(`answers breaking the contract: ${total.violations}`);
console.log(`requests with no answer: ${total.noReply}`);
console.log(`server error log lines: ${errorLogLines}`);
console.log(
  `process exits during the run: ${exitedDuringRun ? `1 (code ${exitedDuringRun.code}, signal ${exitedDuringRun.signal})` : 0}; after the run: healthz ${health?.status ?? 'no answer'}, me ${me?.status ?? 'no answer'}`,
);
console.log(`prototype pollution seen in the server: ${pollution.length ? pollution.join(', ') : 'none'}`);
if (problemCounts.size) {
  console.log('\nviolations by kind:');
  for (const [problem, n] of [...problemCounts].sort(([, a], [, b]) => b - a))
    console.log(`  ${pad(n, 6)}  ${problem}`);
}
if (examples.length) console.log(`\nexamples:\n  ${examples.join('\n  ')}`);
if (noReplyExamples.length) console.log(`\nno reply:\n  ${noReplyExamples.join('\n  ')}`);
if (exitedDuringRun) console.log(`\nlast server output:\n${child.output().join('\n')}`);

const failed =
  total.fiveHundreds > 0 ||
  total.violations > 0 ||
  total.noReply > 0 ||
  exitedDuringRun !== undefined ||
  pollution.length > 0 ||
  health?.status !== 200 ||
  me?.status !== 200;
console.log(
  failed ? '\nFAILED' : '\nOK: zero 5xx, every answer kept the contract, the process stayed up, no prototype polluted',
);
process.exit(failed ? 1 : 0);
