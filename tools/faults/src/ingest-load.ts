// What the fault and soak tools share: the collector as a child process with an account and apps, and batches posted
// with every answer recorded (status, Retry-After, counts, when it was sent and answered).
import { join } from 'node:path';
import { type Child, createAccountWithApps, freePort, startChild } from '@collector/bench/procs';

/** One HTTP answer to one attempt at a batch. Times are ms on the run's clock (`performance.now()`). */
export interface Answer {
  batch: number;
  attempt: number;
  events: number;
  sentAt: number;
  answeredAt: number;
  /** 0: no HTTP answer at all (connection refused or reset, or no answer within the request timeout). */
  status: number;
  retryAfter: string | null;
  /** The contract's error code of a non-2xx answer, or why there was no answer. */
  code?: string;
  accepted: number;
  duplicates: number;
  rejected: number;
}

export const latencyOf = (answer: Answer) => answer.answeredAt - answer.sentAt;

export async function postBatch(origin: string, body: string, meta: { batch: number; attempt: number; events: number }, timeoutMs: number): Promise<Answer> {
  const sentAt = performance.now();
  const answer: Answer = { ...meta, sentAt, answeredAt: sentAt, status: 0, retryAfter: null, accepted: 0, duplicates: 0, rejected: 0 };
  try {
    const response = await fetch(`${origin}/api/events/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    answer.answeredAt = performance.now();
    answer.status = response.status;
    answer.retryAfter = response.headers.get('retry-after');
    let json: { accepted?: number; duplicates?: number; rejected?: unknown[]; error?: { code?: string } } | undefined;
    try {
      json = JSON.parse(text);
    } catch {
      answer.code = `unparseable body: ${text.slice(0, 100)}`;
    }
    if (response.status === 200) {
      answer.accepted = json?.accepted ?? 0;
      answer.duplicates = json?.duplicates ?? 0;
      answer.rejected = json?.rejected?.length ?? 0;
    } else if (json) {
      answer.code = json.error?.code ?? `no error code: ${text.slice(0, 100)}`;
    }
  } catch (error) {
    answer.answeredAt = performance.now();
    const cause = (error as { cause?: { code?: string } }).cause;
    answer.code = (error as Error).name === 'TimeoutError' ? 'no answer (timeout)' : `no answer (${cause?.code ?? (error as Error).message})`;
  }
  return answer;
}

export interface RunningCollector {
  child: Child;
  origin: string;
  appKeys: string[];
  /** Set when the process exited: its code or signal and the time, on the run's clock. */
  exited(): { at: number; code: number | null; signal: string | null } | undefined;
}

/** Starts `services/collector/src/main.ts` (rate limit off) and creates an account and `apps` apps through its API. */
export async function startCollector(options: { repoRoot: string; env: Record<string, string>; apps?: number; nodeArgs?: string[] }): Promise<RunningCollector> {
  const port = await freePort();
  const child = await startChild({
    name: 'collector',
    script: join(options.repoRoot, 'services/collector/src/main.ts'),
    cwd: options.repoRoot,
    port,
    nodeArgs: options.nodeArgs ?? [],
    env: { PORT: String(port), HOST: '127.0.0.1', INGEST_RATE_LIMIT: '0', LOG_LEVEL: 'warn', ...options.env },
  });
  let exit: { at: number; code: number | null; signal: string | null } | undefined;
  child.process.once('exit', (code, signal) => {
    exit = { at: performance.now(), code, signal };
  });
  const appKeys = await createAccountWithApps(child.origin, Array.from({ length: options.apps ?? 1 }, (_, i) => `Shop ${i + 1}`));
  return { child, origin: child.origin, appKeys, exited: () => exit };
}

/** Percentile of a list of numbers (nearest rank); NaN for an empty list. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

export const fmt = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
