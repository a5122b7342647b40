// One HTTP request through node:http (so that callers can share a keep-alive agent), answered once read to the end.
import { type Agent, type IncomingHttpHeaders, type OutgoingHttpHeaders, request } from 'node:http';

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export function sendRequest(
  url: URL,
  options: { method?: string; agent: Agent; headers: OutgoingHttpHeaders },
  body?: string,
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
