// Batches posted to POST /api/events/batch with every answer recorded (status, Retry-After, counts, when it was sent
// and answered): what the fault and soak tools, and the fault test, judge the collector by.

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
