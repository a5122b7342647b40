// A webhook receiver for the alert tests: a real HTTP server on 127.0.0.1 that records what it is sent and answers
// with the statuses a test scripts (a hang holds the request unanswered).
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  raw: string;
  // Asserted field by field.
  body: any;
  at: number;
}

export interface Receiver {
  url: string;
  received: ReceivedWebhook[];
  /** Statuses for the next requests, in order; 'hang' never answers. After them: 204. */
  answers: Array<number | 'hang'>;
  /** Resolves once `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: ReceivedWebhook[] = [];
  const answers: Array<number | 'hang'> = [];
  const held: ServerResponse[] = [];
  const waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      received.push({ headers: req.headers, raw, body, at: Date.now() });
      for (const wake of waiters.splice(0)) wake();
      const answer = answers.shift() ?? 204;
      if (answer === 'hang') {
        held.push(res);
        return;
      }
      res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer >= 300 ? 'receiver says no' : undefined);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const waitFor = async (count: number, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    while (received.length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`the receiver got ${received.length} of ${count} webhooks within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return received.slice(0, count);
  };
  return {
    url: `http://127.0.0.1:${port}/hooks/collector`,
    received,
    answers,
    waitFor,
    close: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
