// Loads a collector with realistic history through its public API, so every counter and index the write path
// maintains is filled exactly as real traffic would fill it, whatever the schema looks like.
// Defaults (issue 3): 1,000,000 events, 20 apps of uneven size, ~5,000 fingerprints, 30 days, ~300k distinct users.
import { Agent } from 'node:http';
import { createEventSource, rng, sendRequest } from '@collector/tool-kit';

export interface SeedOptions {
  /** A running collector, e.g. http://127.0.0.1:3100 (run it with INGEST_RATE_LIMIT=0, or the seed waits out 429s). */
  origin: string;
  events?: number;
  apps?: number;
  fingerprints?: number;
  users?: number;
  days?: number;
  connections?: number;
  email?: string;
  password?: string;
  seed?: number;
  log?: (line: string) => void;
}

export interface SeededApp {
  appKey: string;
  name: string;
  /** Events sent to it (all accepted: the seed stops on any failure). */
  events: number;
  fingerprints: number;
  users: number;
}

export interface SeedResult {
  token: string;
  email: string;
  apps: SeededApp[];
  events: number;
  seconds: number;
}

interface Answer {
  status: number;
  body: string;
  retryAfter?: string | undefined;
}

async function post(agent: Agent, url: URL, body: string, token?: string): Promise<Answer> {
  const headers = {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
  const answer = await sendRequest(url, { method: 'POST', agent, headers }, body);
  return { status: answer.status, body: answer.body, retryAfter: answer.headers['retry-after'] };
}

const json = (answer: Answer) =>
  JSON.parse(answer.body) as { token: string; app: { appKey: string }; accepted: number };

export async function seed(options: SeedOptions): Promise<SeedResult> {
  const total = options.events ?? 1_000_000;
  const appCount = options.apps ?? 20;
  const fingerprints = options.fingerprints ?? 5_000;
  const users = options.users ?? 300_000;
  const days = options.days ?? 30;
  const connections = options.connections ?? 32;
  const log = options.log ?? (() => {});
  const email = options.email ?? `seed-${Date.now().toString(36)}@example.com`;
  const password = options.password ?? 'seed passphrase for the collector';
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const url = (path: string) => new URL(path, options.origin);

  // An account (or the existing one) and its apps.
  let session = await post(agent, url('/api/auth/register'), JSON.stringify({ email, password }));
  if (session.status === 409) session = await post(agent, url('/api/auth/login'), JSON.stringify({ email, password }));
  if (session.status !== 200 && session.status !== 201) throw new Error(`sign-in: ${session.status} ${session.body}`);
  const token = json(session).token as string;

  // Uneven sizes (Zipf, s = 1): the biggest app gets ~28% of the events, the smallest ~1.4%.
  // Each app has its own problems and users, in proportion to its size (at least 25 problems and 100 users).
  const weights = Array.from({ length: appCount }, (_, i) => 1 / (i + 1));
  const weightSum = weights.reduce((a, b) => a + b, 0);
  const kindCounts = weights.map((w) => Math.max(25, Math.round((fingerprints * w) / weightSum)));
  const userCounts = weights.map((w) => Math.max(100, Math.round((users * w) / weightSum)));
  const source = createEventSource({
    kinds: kindCounts.reduce((a, b) => a + b, 0),
    users: userCounts.reduce((a, b) => a + b, 0),
    variantsPerKind: 2,
    seed: options.seed ?? 7,
    // Tags for the query bench's tag searches (issue 23).
    tags: true,
  });
  const apps: (SeededApp & { kinds: [number, number]; userRange: [number, number]; weight: number })[] = [];
  let kindFrom = 0;
  let userFrom = 0;
  for (let i = 0; i < appCount; i++) {
    const name = `Seed shop ${String(i + 1).padStart(2, '0')}`;
    const created = await post(
      agent,
      url('/api/apps'),
      JSON.stringify({ name, type: i % 4 === 3 ? 'react-native' : 'web' }),
      token,
    );
    if (created.status !== 201) throw new Error(`create app: ${created.status} ${created.body}`);
    const kinds = kindCounts[i] as number;
    const userCount = userCounts[i] as number;
    apps.push({
      appKey: json(created).app.appKey,
      name,
      events: 0,
      fingerprints: kinds,
      users: userCount,
      kinds: [kindFrom, kindFrom + kinds],
      userRange: [userFrom, userFrom + userCount],
      weight: (weights[i] as number) / weightSum,
    });
    kindFrom += kinds;
    userFrom += userCount;
  }

  // Timestamps spread evenly over the window, kept 10 minutes inside it so none is clamped to the time of receipt, and
  // sent oldest first, as the history would have arrived: batch i of n carries times from the i-th n-th of the window.
  // (In random order every event would land before hours already stored, which real traffic seldom does.)
  const r = rng(options.seed ?? 7);
  const now = Date.now();
  const span = days * 86_400_000 - 600_000;
  const timestampsOf = (batch: number, batches: number) => {
    const from = now - span + (batch * span) / batches;
    return () => Math.floor(from + r() * (span / batches));
  };
  const cumulative = apps.map((_, i) => apps.slice(0, i + 1).reduce((sum, app) => sum + app.weight, 0));
  const pickApp = () => {
    const x = r();
    const index = cumulative.findIndex((c) => x < c);
    return apps[index < 0 ? apps.length - 1 : index] as (typeof apps)[number];
  };

  const batches = Math.ceil(total / source.batchSize);
  let next = 0;
  let done = 0;
  const started = performance.now();
  const progress = setInterval(() => {
    const seconds = (performance.now() - started) / 1000;
    log(
      `  ${done * source.batchSize} events in ${seconds.toFixed(0)} s (${Math.round((done * source.batchSize) / seconds)} events/s)`,
    );
  }, 5_000);
  progress.unref();

  const ingest = url('/api/events/batch');
  const worker = async () => {
    while (next < batches) {
      const timestamp = timestampsOf(next++, batches);
      const app = pickApp();
      const body = source.batch(app.appKey, { kinds: app.kinds, users: app.userRange, timestamp });
      for (let attempt = 1; ; attempt++) {
        const answer = await post(agent, ingest, body);
        if (answer.status === 200) {
          const accepted = json(answer).accepted as number;
          if (accepted !== source.batchSize) throw new Error(`batch for ${app.appKey}: ${answer.body}`);
          app.events += accepted;
          break;
        }
        // A rate limit or a database blip: wait as told and send the same batch again (a retry is idempotent).
        if ((answer.status === 429 || answer.status === 503) && attempt < 100) {
          await new Promise((resolve) => setTimeout(resolve, 1000 * Math.max(1, Number(answer.retryAfter) || 1)));
          continue;
        }
        throw new Error(`batch for ${app.appKey}: ${answer.status} ${answer.body.slice(0, 500)}`);
      }
      done++;
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, worker));
  } finally {
    clearInterval(progress);
    agent.destroy();
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    token,
    email,
    apps: apps.map(({ appKey, name, events, fingerprints, users }) => ({ appKey, name, events, fingerprints, users })),
    events: done * source.batchSize,
    seconds,
  };
}
