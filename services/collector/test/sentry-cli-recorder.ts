// A recording proxy between a real sentry-cli and the collector: each request's method, path, query and JSON body
// (never its headers, so no token), with the status it got. The org token names the address sentry-cli calls, so the
// server behind it is started with PUBLIC_URL = the proxy's. Recordings are kept with the organization's and
// project's names as placeholders, so that a replay (sentry-cli-replay.test.ts) can run them against fresh ones.
import { writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** The path as sent (percent-encoding kept), with {org}, {project} and {projectId} for the names of the run. */
  path: string;
  query: string;
  body: unknown;
  status: number;
}

export interface RecordingProxy {
  url: string;
  /** Where requests go: set once the server behind it has started. */
  target: string;
  recorded: RecordedRequest[];
  stop(): Promise<void>;
}

export async function startRecordingProxy(): Promise<RecordingProxy> {
  const proxy: RecordingProxy = { url: '', target: '', recorded: [], stop: async () => {} };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const sent = Buffer.concat(chunks);
      const target = new URL(req.url ?? '/', proxy.target);
      const forward = httpRequest(
        target,
        { method: req.method, headers: { ...req.headers, host: target.host } },
        (answer) => {
          const [path = '', query = ''] = (req.url ?? '').split('?');
          let body: unknown = null;
          try {
            body = sent.length > 0 ? JSON.parse(sent.toString('utf8')) : null;
          } catch {
            body = sent.toString('utf8');
          }
          proxy.recorded.push({ method: req.method ?? 'GET', path, query, body, status: answer.statusCode ?? 0 });
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => res.writeHead(502).end());
      forward.end(sent);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.stop = () => new Promise((resolve) => server.close(() => resolve()));
  return proxy;
}

/** The recordings with the run's names as placeholders, written as JSON (a fixture file). */
export async function writeRecording(
  file: string,
  recorded: RecordedRequest[],
  names: { org: string; project: string; projectId: string },
): Promise<void> {
  const text = JSON.stringify(recorded, null, 2)
    .replaceAll(`/${names.org}/`, '/{org}/')
    .replaceAll(`/${names.project}/`, '/{project}/')
    .replaceAll(`"${names.project}"`, '"{project}"')
    .replaceAll(`"${names.projectId}"`, '"{projectId}"');
  await writeFile(file, `${text}\n`);
}
