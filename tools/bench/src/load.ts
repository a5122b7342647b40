// Load: closed-loop rounds with autocannon (as fast as the server answers), and an open-loop paced round
// (a fixed arrival rate, latency counted from each request's scheduled time) for "p99 at 80% of peak".
import { Agent, request } from 'node:http';
import { type EventSource, percentile } from '@collector/tool-kit';
import autocannon from 'autocannon';

export interface Target {
  name: string;
  origin: string;
  appKey: string;
}

/** What the responses said, summed over every round sent to one target. */
export interface Tally {
  requests: number;
  ok: number;
  non2xx: number;
  accepted: number;
  duplicates: number;
  rejected: number;
  /** 200 answers whose `accepted` was not the batch size. */
  shortBatches: number;
  statuses: Record<string, number>;
  /** The first few non-200 bodies, for diagnostics. */
  samples: string[];
}

export const emptyTally = (): Tally => ({
  requests: 0,
  ok: 0,
  non2xx: 0,
  accepted: 0,
  duplicates: 0,
  rejected: 0,
  shortBatches: 0,
  statuses: {},
  samples: [],
});

function record(tally: Tally, status: number, body: string, batchSize: number) {
  tally.requests++;
  tally.statuses[status] = (tally.statuses[status] ?? 0) + 1;
  if (status < 200 || status > 299) {
    tally.non2xx++;
    if (tally.samples.length < 5) tally.samples.push(`${status} ${body.slice(0, 300)}`);
    return;
  }
  tally.ok++;
  try {
    const answer = JSON.parse(body) as { accepted: number; duplicates: number; rejected: unknown[] };
    tally.accepted += answer.accepted;
    tally.duplicates += answer.duplicates;
    tally.rejected += answer.rejected.length;
    if (answer.accepted !== batchSize) {
      tally.shortBatches++;
      if (tally.samples.length < 5) tally.samples.push(`${status} ${body.slice(0, 300)}`);
    }
  } catch {
    if (tally.samples.length < 5) tally.samples.push(`${status} unparseable: ${body.slice(0, 300)}`);
  }
}

/** The counts a round's figures are the difference of. */
type RoundCounts = Pick<Tally, 'requests' | 'non2xx' | 'accepted'>;

export interface RoundOptions {
  connections: number;
  seconds: number;
  timeoutSeconds?: number;
}

/** The part of autocannon's per-connection client that a clean stop needs (not in its type definitions). */
interface CannonClient {
  reqsMade: number;
  responseMax?: number;
}

/**
 * autocannon for `seconds`, every request answered and counted. Its own `duration` would drop the requests in flight
 * when time is up (stored, but their answers never read); instead, once time is up each connection stops after its
 * in-flight answer arrives (its `responseMax` is set to what it has sent). `duration` is only a bound in case the
 * server stops answering. Returns the latencies (ms) and the seconds until the last answer.
 */
export async function closedLoop(options: autocannon.Options, seconds: number) {
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let lastAnswer = started;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(options, (error, answer) => (error ? reject(error) : resolve(answer)));
    (instance as NodeJS.EventEmitter).on(
      'response',
      (client: CannonClient, _status: number, _bytes: number, responseTime: number) => {
        const now = performance.now();
        lastAnswer = now;
        latencies.push(responseTime);
        if (now >= deadline) client.responseMax = client.reqsMade;
      },
    );
  });
  return { errors: result.errors, latencies, seconds: (lastAnswer - started) / 1000 };
}

/** As fast as the server answers: `connections` keep-alive connections, one request in flight on each, a new batch per request. */
export async function closedLoopRound(target: Target, source: EventSource, tally: Tally, options: RoundOptions) {
  const before = { ...tally };
  const timeoutSeconds = options.timeoutSeconds ?? 30;
  const run = await closedLoop(
    {
      url: target.origin,
      connections: options.connections,
      duration: options.seconds + 2 * timeoutSeconds + 5,
      timeout: timeoutSeconds,
      requests: [
        {
          method: 'POST',
          path: '/api/events/batch',
          headers: { 'content-type': 'application/json' },
          setupRequest: (req) => ({ ...req, body: source.batch(target.appKey) }),
          onResponse: (status, body) => record(tally, status, body, source.batchSize),
        },
      ],
    },
    options.seconds,
  );
  return roundFigures(tally, before, run.latencies, run.seconds, run.errors);
}

/** What one round added to the tally, with its latencies (ms) summarised. */
export function roundFigures(
  tally: RoundCounts,
  before: RoundCounts,
  latencies: number[],
  seconds: number,
  errors: number,
) {
  latencies.sort((a, b) => a - b);
  const accepted = tally.accepted - before.accepted;
  return {
    seconds,
    requests: tally.requests - before.requests,
    non2xx: tally.non2xx - before.non2xx,
    errors,
    accepted,
    eventsPerSecond: accepted / seconds,
    p50: percentile(latencies, 50, true),
    p99: percentile(latencies, 99, true),
    max: latencies.at(-1) ?? Number.NaN,
  };
}

/**
 * A fixed arrival rate (`requestsPerSecond`, evenly spaced) over at most `connections` sockets. Latency is measured
 * from when a request was due, not when a socket was free, so queueing inside the client counts (no coordinated omission).
 */
export async function pacedRound(
  target: Target,
  source: EventSource,
  tally: Tally,
  options: RoundOptions & { requestsPerSecond: number },
) {
  const before = { ...tally };
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const url = new URL('/api/events/batch', target.origin);
  const latencies: number[] = [];
  let errors = 0;
  let inFlight = 0;
  let sent = 0;
  const interval = 1000 / options.requestsPerSecond;
  const started = performance.now();
  const total = Math.floor(options.seconds * options.requestsPerSecond);

  const fire = (due: number) => {
    const body = source.batch(target.appKey);
    inFlight++;
    let done = false;
    const finish = () => {
      if (done) return false;
      done = true;
      inFlight--;
      return true;
    };
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        timeout: (options.timeoutSeconds ?? 30) * 1000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          if (!finish()) return;
          latencies.push(performance.now() - due);
          record(tally, res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'), source.batchSize);
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => {
      if (finish()) errors++;
    });
    req.end(body);
  };

  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (sent < total && started + sent * interval <= now) {
        fire(started + sent * interval);
        sent++;
      }
      if (sent >= total) {
        clearInterval(timer);
        const drain = setInterval(() => {
          if (inFlight === 0) {
            clearInterval(drain);
            resolve();
          }
        }, 5);
      }
    };
    const timer = setInterval(tick, 2);
  });
  agent.destroy();
  return roundFigures(tally, before, latencies, (performance.now() - started) / 1000, errors);
}
