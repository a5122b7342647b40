// `pnpm --filter @collector/fuzz timing`: does a sign-in with an unknown e-mail take as long as one with a wrong
// password? Measured against a live collector started as a child process; prints both medians and their ratio.
// The contract asks for medians within 10% over 200 tries each; the command exits 1 when they are not. On a busy
// machine the medians are noisy: run it again on a quiet one before blaming the service.
//
//   options: --tries 200 --accounts 25 --database-url postgres://...
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { cleanupOnExit, parseFlags, startCollector } from '@collector/tool-kit';
import { createAgent, send } from './transport';

const { flags, number } = parseFlags(
  'pnpm --filter @collector/fuzz timing [--tries 200] [--accounts 25] [--database-url postgres://...]',
  {
    tries: { type: 'string', default: '200' },
    accounts: { type: 'string', default: '25' },
    'database-url': { type: 'string' },
  },
);
const tries = number('tries', 2, 100_000);
const accountCount = number('accounts', 1, 10_000);
// The deployed throttle allows 10 failures per e-mail: spread the wrong passwords over enough accounts.
if (tries / accountCount > 9) {
  console.error(`--accounts: at most 9 wrong passwords per account; use at least ${Math.ceil(tries / 9)}`);
  process.exit(2);
}

const root = fileURLToPath(new URL('../../..', import.meta.url));
const { cleanups, cleanup } = cleanupOnExit('stopping the collector and removing its folder');
const work = mkdtempSync(join(tmpdir(), 'collector-timing-'));
cleanups.push(() => rmSync(work, { recursive: true, force: true }));
const child = await startCollector({
  repoRoot: root,
  env: {
    // Each attempt comes from its own address (X-Forwarded-For from loopback), so the per-address throttle, which
    // is there to stop exactly this many attempts, does not end the measurement early. Nothing else of sign-in changes.
    TRUST_PROXY: 'loopback',
    ...(flags['database-url'] ? { DATABASE_URL: flags['database-url'] } : { DATA_DIR: join(work, 'data') }),
  },
});
cleanups.push(() => child.stop());

const agent = createAgent(1);
let address = 0;
const nextAddress = () => {
  address++;
  return `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}`;
};

async function login(email: string, password: string): Promise<{ ms: number; status: number; body: string }> {
  const body = Buffer.from(JSON.stringify({ email, password }));
  const started = performance.now();
  const reply = await send(
    child.origin,
    {
      method: 'POST',
      path: '/api/auth/login',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': nextAddress() },
      body,
    },
    { agent },
  );
  return { ms: performance.now() - started, status: reply.status, body: reply.body.toString('utf8') };
}

const password = 'the right passphrase for timing';
const accounts: string[] = [];
for (let i = 0; i < accountCount; i++) {
  const email = `timing-${i}-${process.pid}@example.com`;
  const reply = await send(
    child.origin,
    {
      method: 'POST',
      path: '/api/auth/register',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': nextAddress() },
      body: Buffer.from(JSON.stringify({ email, password })),
    },
    { agent },
  );
  if (reply.status !== 201) throw new Error(`register: ${reply.status} ${reply.body.toString('utf8')}`);
  accounts.push(email);
}

let unknownCounter = 0;
const attempt = {
  unknown: () => login(`nobody-${process.pid}-${unknownCounter++}@example.com`, 'a wrong passphrase'),
  wrong: (i: number) => login(accounts[i % accounts.length] as string, 'a wrong passphrase'),
};

// Warm-up (JIT, connection, argon2's first allocations), not counted.
for (let i = 0; i < 10; i++) {
  await attempt.unknown();
  await login(`warm-${i}-${process.pid}@example.com`, 'x'.repeat(12));
}

// In pairs, one of each kind in a random order within the pair: drift (CPU frequency, other load on the machine)
// then falls on both kinds alike, which a shuffle of the whole list would not guarantee.
const order = Array.from({ length: tries }, () =>
  Math.random() < 0.5 ? (['unknown', 'wrong'] as const) : (['wrong', 'unknown'] as const),
).flat();
const times = { unknown: [] as number[], wrong: [] as number[] };
const answers = new Map<string, number>();
let wrongIndex = 0;
for (const kind of order) {
  const result = kind === 'unknown' ? await attempt.unknown() : await attempt.wrong(wrongIndex++);
  times[kind].push(result.ms);
  const answer = `${result.status} ${result.body}`;
  answers.set(answer, (answers.get(answer) ?? 0) + 1);
}
agent.destroy();
await cleanup();

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
};
const medianUnknown = quantile(times.unknown, 0.5);
const medianWrong = quantile(times.wrong, 0.5);
const ratio = Math.max(medianUnknown, medianWrong) / Math.min(medianUnknown, medianWrong);
const row = (name: string, values: number[]) =>
  `${name.padEnd(16)} ${String(values.length).padStart(5)} ${quantile(values, 0.1).toFixed(1).padStart(8)} ${quantile(values, 0.5).toFixed(1).padStart(8)} ${quantile(values, 0.9).toFixed(1).padStart(8)}`;
console.log(`\nsign-in time, ms (${flags['database-url'] ? 'PostgreSQL' : 'embedded database'})`);
console.log(
  `${'attempt'.padEnd(16)} ${'tries'.padStart(5)} ${'p10'.padStart(8)} ${'median'.padStart(8)} ${'p90'.padStart(8)}`,
);
console.log(row('unknown e-mail', times.unknown));
console.log(row('wrong password', times.wrong));
console.log(
  `\nmedian unknown e-mail: ${medianUnknown.toFixed(2)} ms, median wrong password: ${medianWrong.toFixed(2)} ms, ratio ${ratio.toFixed(3)} (${((ratio - 1) * 100).toFixed(1)}% apart)`,
);
console.log(`distinct answers: ${answers.size}`);
for (const [answer, count] of answers) console.log(`  ${count} x ${answer}`);
const ok = ratio <= 1.1 && answers.size === 1;
console.log(
  ok ? 'OK: medians within 10%, one answer for both' : 'FAILED: medians more than 10% apart, or the answers differ',
);
process.exit(ok ? 0 : 1);
