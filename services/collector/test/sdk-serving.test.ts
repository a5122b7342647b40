// GET /sdk/collector.min.js: the browser SDK built from the current sources, compressed, cacheable, loadable anywhere.
import { readdirSync, readFileSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { startTestServer } from './harness';

const server = await startTestServer();
const url = `${server.url.replace('localhost', '127.0.0.1')}/sdk/collector.min.js`;

const get = (headers: Record<string, string> = {}, method = 'GET') => fetch(url, { method, headers });

describe('the browser SDK served by the collector', () => {
  it('serves the script-tag build, brotli or gzip as the client accepts, the same bytes either way', async () => {
    const identity = await get({ 'accept-encoding': 'identity' });
    expect(identity.status).toBe(200);
    expect(identity.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(identity.headers.get('content-encoding')).toBeNull();
    const code = Buffer.from(await identity.arrayBuffer());
    expect(code.toString()).toContain('Collector');
    expect(code.toString()).toContain('sourceMappingURL=collector.min.js.map');

    // undici's fetch decompresses on its own; node:http shows the bytes as sent.
    const { request } = await import('node:http');
    const raw = (encoding: string) =>
      new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
        request(url, { headers: { 'accept-encoding': encoding } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
        })
          .on('error', reject)
          .end();
      });
    const br = await raw('gzip, deflate, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body)).toEqual(code);
    expect(br.body.length).toBeLessThan(code.length / 2);
    const gz = await raw('gzip;q=1, br;q=0');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body)).toEqual(code);
    expect(gz.headers.vary).toBe('Accept-Encoding');
  });

  it('is cacheable and revalidates by ETag; any origin may load it', async () => {
    const first = await get();
    expect(first.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(first.headers.get('access-control-allow-origin')).toBe('*');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^".+"$/);
    const again = await get({ 'if-none-match': etag as string });
    expect(again.status).toBe(304);
    expect((await get({}, 'HEAD')).status).toBe(200);
    expect((await fetch(`${url}.map`)).status).toBe(200);
  });

  it('leaves no esbuild service process behind once built (it would hold ~20 MB for the life of the service)', async () => {
    expect((await get()).status).toBe(200);
    const children = readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .flatMap((pid) => {
        try {
          const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
          const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
          return parent === process.pid ? [readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ')] : [];
        } catch {
          return []; // gone meanwhile
        }
      });
    expect(children.filter((command) => command.includes('esbuild'))).toEqual([]);
  });

  it('answers other methods with 405', async () => {
    const reply = await server.call('POST', '/sdk/collector.min.js', { body: {} });
    expect(reply.status).toBe(405);
    expect(reply.headers.get('allow')).toBe('GET, HEAD');
  });
});
