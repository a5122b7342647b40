// Batches posted to POST /api/events/batch with every answer recorded (status, Retry-After, counts, when it was sent
// and answered): what the fault and soak tools, and the fault test, judge the collector by. And loadEvents, which fills
// a collector for a bench and fails on the first batch not wholly accepted.
import type { EventSource } from './events';

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

export async function postBatch(
  origin: string,
  body: string,
  meta: { batch: number; attempt: number; events: number },
  timeoutMs: number,
): Promise<Answer> {
  const sentAt = performance.now();
  const answer: Answer = {
    ...meta,
    sentAt,
    answeredAt: sentAt,
    status: 0,
    retryAfter: null,
    accepted: 0,
    duplicates: 0,
    rejected: 0,
  };
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
    answer.code =
      (error as Error).name === 'TimeoutError'
        ? 'no answer (timeout)'
        : `no answer (${cause?.code ?? (error as Error).message})`;
  }
  return answer;
}

/**
 * Sends `total` events (rounded up to whole batches) of `source` over `connections` concurrent loops; resolves when all
 * are accepted, throws at the first batch that is not. `appKey`: one app, or the app of each batch.
 */
export async function loadEvents(
  origin: string,
  appKey: string | (() => string),
  source: EventSource,
  total: number,
  timestamp?: () => number,
  connections = 16,
): Promise<void> {
  let sent = 0;
  let last = Date.now();
  const loop = async () => {
    while (sent < total) {
      sent += source.batchSize;
      const response = await fetch(`${origin}/api/events/batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: source.batch(typeof appKey === 'string' ? appKey : appKey(), { timestamp }),
      });
      const body = (await response.json()) as { accepted?: number };
      if (response.status !== 200 || body.accepted !== source.batchSize)
        throw new Error(`load: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
      if (Date.now() - last > 30_000) {
        last = Date.now();
        process.stderr.write(`  loaded ${sent.toLocaleString()} of ${total.toLocaleString()} events\n`);
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
}
