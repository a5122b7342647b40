// Raw HTTP for hostile input: any method, any header bytes, any body bytes, and a reply even when the server answers
// before the body is sent (an early 413) or closes the connection afterwards.
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';

export interface RawRequest {
  method: string;
  /** Path and query, sent as is (percent-escapes included, valid or not). */
  path: string;
  headers: Record<string, string>;
  body?: Uint8Array | undefined;
}

export interface RawReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A connection problem with no answer at all: never a server verdict, but worth counting. */
export class NoReplyError extends Error {
  override readonly name = 'NoReplyError';
}

export function createAgent(maxSockets: number): Agent {
  return new Agent({ keepAlive: true, maxSockets });
}

/** Characters http.request refuses in a path; everything else, `%` included, is sent unchanged. */
const UNSENDABLE_IN_PATH = /[^\x21-\x7e]/gu;

export function sendableRequestPath(path: string): string {
  return path.replace(UNSENDABLE_IN_PATH, (char) => {
    try {
      return encodeURIComponent(char);
    } catch {
      return '%ED%A0%80'; // a lone surrogate: sent as the (invalid) UTF-8 bytes it would have had
    }
  });
}

export function send(
  origin: string,
  input: RawRequest,
  options: { agent?: Agent; timeoutMs?: number } = {},
): Promise<RawReply> {
  const url = new URL(origin);
  return new Promise<RawReply>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: { reply?: RawReply; error?: Error }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (outcome.reply) resolve(outcome.reply);
      else reject(outcome.error);
    };
    const headers: Record<string, string | number> = { ...input.headers };
    if (input.body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-length')) {
      headers['content-length'] = input.body.byteLength;
    }
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: input.method,
        path: sendableRequestPath(input.path),
        headers,
        agent: options.agent ?? false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          finish({ reply: { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) } }),
        );
        res.on('error', (error) => finish({ error: new NoReplyError(`response: ${error.message}`) }));
      },
    );
    // The server may answer (413, 415) and close before reading a large body: the reply still counts.
    req.on('error', (error) =>
      setTimeout(
        () => finish({ error: new NoReplyError(`${(error as NodeJS.ErrnoException).code ?? ''} ${error.message}`) }),
        50,
      ),
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish({ error: new NoReplyError(`no answer within ${options.timeoutMs ?? 30_000} ms`) });
    }, options.timeoutMs ?? 30_000);
    if (input.body !== undefined) req.end(input.body);
    else req.end();
  });
}
