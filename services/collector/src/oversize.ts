// Which app an ingestion body refused as too large came from, for the too_large outcome. The body is never read whole
// (that is the point of refusing it), so the appKey is looked for in its first bytes, where SDKs put it
// (`{"appKey":"web_...","events":[...]}`), decompressed as far as that first chunk goes. A body that names no appKey
// there is not counted: the outcome counts what can be attributed (README, "Choices where the contract leaves room").
import type { IncomingMessage } from 'node:http';
import zlib from 'node:zlib';

/** Bytes of the body looked at, before and after decompression. */
const PREFIX_BYTES = 16 * 1024;
const APP_KEY = /"appKey"\s*:\s*"([A-Za-z0-9_-]{1,128})"/;

/** The start of a body, decompressed as far as `input` goes; undefined when that would pass PREFIX_BYTES (a bomb). */
function decode(input: Buffer, encoding: string): string | undefined {
  const options = { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: PREFIX_BYTES };
  try {
    switch (encoding) {
      case 'identity':
        return input.toString('utf8');
      case 'gzip':
        return zlib.gunzipSync(input, options).toString('utf8');
      case 'deflate':
        return zlib.inflateSync(input, options).toString('utf8');
      case 'br':
        return zlib
          .brotliDecompressSync(input, {
            finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
            maxOutputLength: PREFIX_BYTES,
          })
          .toString('utf8');
      default:
        return undefined;
    }
  } catch {
    return undefined;
  }
}

export function appKeyInPrefix(chunk: Buffer | undefined, encoding: string | undefined): string | undefined {
  if (!chunk) return undefined;
  // Growing prefixes of the compressed bytes: a body that compresses well (the usual oversize one) would inflate past
  // PREFIX_BYTES from its whole first chunk, while its appKey comes out of the first few dozen bytes.
  for (const size of [128, 1024, PREFIX_BYTES]) {
    const text = decode(chunk.subarray(0, size), (encoding ?? 'identity').toLowerCase());
    if (text === undefined) return undefined;
    const appKey = APP_KEY.exec(text)?.[1];
    if (appKey !== undefined || size >= chunk.length) return appKey;
  }
  return undefined;
}

/**
 * Keeps the first chunk of a request body as it streams by (to whoever else reads it), so that a refusal for size can
 * still say whose it was. Call before the body is read.
 */
export function keepFirstChunk(req: IncomingMessage): () => Buffer | undefined {
  let first: Buffer | undefined;
  const onData = (chunk: Buffer) => {
    first = chunk;
  };
  req.once('data', onData);
  return () => first;
}

/**
 * The first chunk of a body not read yet (refused on its declared length); the rest is read and dropped, as Node does
 * with a body nobody reads, so that the client, still sending, gets the answer instead of a reset connection.
 */
export function readFirstChunk(req: IncomingMessage, timeoutMs = 1_000): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const done = (chunk?: Buffer) => {
      clearTimeout(timer);
      req.off('data', done);
      req.off('end', done);
      req.off('error', done);
      req.resume();
      resolve(Buffer.isBuffer(chunk) ? chunk : undefined);
    };
    const timer = setTimeout(done, timeoutMs);
    req.on('data', done);
    req.once('end', done);
    req.once('error', done);
  });
}
