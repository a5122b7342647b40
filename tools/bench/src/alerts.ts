// `pnpm bench --alerts`: the benchmark's app gets 10 webhook rules (new issue, and spikes that fire), delivered to a
// receiver in this process. Reports whether every (rule, new issue) pair arrived exactly once, the duplicates, and the
// latency from a batch's 200 to its webhook's arrival, measured on probe batches that each open a new issue while
// the load runs.
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

const RULES = 10;

interface Arrival {
  rule: number;
  deliveryId: string;
  trigger: string;
  issueId: string;
  at: number;
}

export interface AlertBench {
  /** Account, app and rules on the collector; the app's key. */
  createApp(origin: string): Promise<string>;
  /** Sends a probe batch with a new issue every `everyMs` until stopped; how many probe events were accepted. */
  startProbes(origin: string, appKey: string, everyMs?: number): { stop(): Promise<number> };
  /** Waits until every new issue of the app (its overview's count) has its alerts (or `timeoutMs`), then the report. */
  report(timeoutMs?: number): Promise<{ lines: string[]; ok: boolean }>;
  close(): Promise<void>;
}

async function call(origin: string, method: string, path: string, body?: unknown, token?: string) {
  const response = await fetch(`${origin}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as { token: string; app: { appKey: string }; totals: { issues: number } };
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

export async function startAlertBench(): Promise<AlertBench> {
  const arrivals: Arrival[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          id: string;
          trigger: string;
          issue: { id: string };
        };
        arrivals.push({
          rule: Number(req.url?.split('/').at(-1)),
          deliveryId: body.id,
          trigger: body.trigger,
          issueId: body.issue.id,
          at,
        });
      } catch {
        // Counted as nothing: the report shows what is missing.
      }
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const receiver = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const probes = new Map<string, number>();
  let newIssueRules = 0;
  let owner: { origin: string; token: string; appKey: string } | undefined;

  return {
    async createApp(origin) {
      const { token } = await call(origin, 'POST', '/api/auth/register', {
        email: `bench-alerts-${Date.now()}-${process.pid}@example.com`,
        password: 'tools passphrase for collector',
      });
      const { app } = await call(origin, 'POST', '/api/apps', { name: 'Bench shop', type: 'web' }, token);
      // 8 rules on new issues, 2 on spikes (100 events of an issue in 1 minute: the bench's hot issues reach it).
      for (let rule = 0; rule < RULES; rule++) {
        const spike = rule >= RULES - 2;
        if (!spike) newIssueRules++;
        await call(
          origin,
          'POST',
          `/api/apps/${app.appKey}/alerts`,
          spike
            ? {
                trigger: 'spike',
                spike: { events: 100, minutes: 1 },
                channel: { type: 'webhook', url: `${receiver}/hook/${rule}` },
              }
            : { trigger: 'new_issue', channel: { type: 'webhook', url: `${receiver}/hook/${rule}` } },
          token,
        );
      }
      owner = { origin, token, appKey: app.appKey };
      return app.appKey as string;
    },

    startProbes(origin, appKey, everyMs = 500) {
      let sequence = 0;
      let stopped = false;
      const url = new URL('/api/events/batch', origin);
      const sendOne = () =>
        new Promise<void>((resolve) => {
          sequence++;
          const fingerprint = `BenchProbe:p${process.pid}x${sequence}`;
          const body = JSON.stringify({
            appKey,
            events: [
              {
                eventId: `evt_probe_${process.pid}_${sequence}`,
                type: 'error',
                timestamp: Date.now(),
                errorType: 'BenchProbe',
                message: `probe ${sequence}`,
                fingerprint,
              },
            ],
          });
          const req = request(
            url,
            {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
            },
            (res) => {
              res.resume();
              res.on('end', () => {
                if (res.statusCode === 200) probes.set(`${appKey}:${fingerprint}`, performance.now());
                resolve();
              });
            },
          );
          req.on('error', () => resolve());
          req.end(body);
        });
      const loop = (async () => {
        while (!stopped) {
          await sendOne();
          await new Promise((resolve) => setTimeout(resolve, everyMs));
        }
      })();
      return {
        stop: async () => {
          stopped = true;
          await loop;
          return probes.size;
        },
      };
    },

    async report(timeoutMs = 60_000) {
      if (!owner) throw new Error('report before createApp');
      const { totals } = await call(
        owner.origin,
        'GET',
        `/api/overview?appKey=${owner.appKey}`,
        undefined,
        owner.token,
      );
      const issues = totals.issues as number;
      const expected = issues * newIssueRules;
      const pairs = () =>
        new Set(arrivals.filter((each) => each.trigger === 'new_issue').map((each) => `${each.rule} ${each.issueId}`));
      const deadline = Date.now() + timeoutMs;
      while (pairs().size < expected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      const newIssue = arrivals.filter((each) => each.trigger === 'new_issue');
      const distinctDeliveries = new Set(newIssue.map((each) => each.deliveryId)).size;
      const latencies: number[] = [];
      for (const [issueId, answeredAt] of probes) {
        for (const arrival of newIssue.filter((each) => each.issueId === issueId))
          latencies.push(arrival.at - answeredAt);
      }
      latencies.sort((a, b) => a - b);
      const pct = (p: number) =>
        latencies.length
          ? (latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)] as number).toFixed(
              0,
            )
          : '-';
      const spikes = arrivals.filter((each) => each.trigger === 'spike');
      const ok = pairs().size === expected && distinctDeliveries === newIssue.length;
      return {
        ok,
        lines: [
          `alerts: ${newIssueRules} new-issue rules and ${RULES - newIssueRules} spike rules (100 events/min) on the app, webhooks to ${receiver}`,
          `  new issues ${issues} -> (rule, issue) pairs expected ${expected}, arrived ${pairs().size}; webhooks ${newIssue.length}, duplicates ${newIssue.length - distinctDeliveries}` +
            `  ->  ${ok ? 'OK, every new issue delivered once per rule' : 'MISMATCH'}`,
          `  batch 200 -> webhook arrival, ${latencies.length} probes during the load: p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${pct(100)} ms`,
          `  spike alerts: ${spikes.length} (${new Set(spikes.map((each) => each.issueId)).size} issues)`,
        ],
      };
    },

    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
