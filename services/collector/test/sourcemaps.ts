// What the source-map upload tests share: a team with an org token of scope releases, a small app minified by esbuild
// with its map, and a recording proxy that keeps what a real client sends (redacted) for the replay test.

import { createHash } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateRawSync, gzipSync } from 'node:zlib';
import { expect } from 'vitest';
import { esbuild } from './esbuild';
import { signUp, type TestServer } from './harness';

// The two binaries by their packages (never node_modules/.bin/sentry-cli, which either may own).
const require = createRequire(import.meta.url);
export const SENTRY_CLI_2 = require.resolve('@sentry/cli/bin/sentry-cli');
export const SENTRY_CLI_3 = require.resolve('sentry-cli-3/bin/sentry-cli');

/** An organization, its app `shop`, and an org token of scope releases (what CI is given). */
export async function uploadTeam(server: TestServer, name = 'Acme') {
  const owner = await signUp(server);
  const org = (await server.call('POST', '/api/orgs', { token: owner.token, body: { name } })).body.org;
  const app = (
    await server.call('POST', '/api/apps', { token: owner.token, body: { name: 'Shop', type: 'web', org: org.slug } })
  ).body.app;
  const reply = await server.call('POST', '/api/tokens', {
    token: owner.token,
    body: { name: 'ci', scopes: ['releases'], org: org.slug },
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  // The API shows an organization by its slug; the tests read its rows by its id.
  const { id } = await server.database.db
    .selectFrom('organizations')
    .select('id')
    .where('slug', '=', org.slug)
    .executeTakeFirstOrThrow();
  return { owner, org: { ...org, id } as { id: string; slug: string }, app, token: reply.body.token.value as string };
}

/** A two-function app, bundled and minified by esbuild with a map beside it: dist/app.min.js(.map). */
export async function minifiedApp(extra = ''): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sourcemaps-'));
  await writeFile(
    join(dir, 'app.js'),
    `export function checkout(cart) {\n  if (!cart.items.length) throw new Error('empty cart');\n  return cart.items.length;\n}\n${extra}\nwindow.checkout = checkout;\n`,
  );
  await esbuild([
    join(dir, 'app.js'),
    '--bundle',
    '--minify',
    '--sourcemap',
    '--format=iife',
    `--outfile=${join(dir, 'dist', 'app.min.js')}`,
  ]);
  return dir;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** JSON bodies as sent; multipart bodies as base64 (chunks of a small bundle), with their content type. */
  json?: unknown;
  base64?: string;
  status: number;
  answer: unknown;
}

/** The headers worth keeping: what decides how the server reads the request. Authorization is never kept. */
const KEPT_HEADERS = ['content-type', 'content-encoding', 'user-agent'];

/**
 * A proxy in front of the collector that records each request and its answer. The org token's URL is the collector's
 * (PUBLIC_URL), so clients are sent through this proxy with SENTRY_URL... except that a URL inside an org token wins:
 * the tests give the proxy's address as the server's PUBLIC_URL instead, so the chunk-upload url leads here too.
 */
export async function recordingProxy(target: () => string) {
  const recorded: RecordedRequest[] = [];
  const proxy = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const body = Buffer.concat(parts);
      const headers = { ...req.headers, host: new URL(target()).host };
      const forwarded = httpRequest(`${target()}${req.url}`, { method: req.method, headers }, (answer) => {
        const answerParts: Buffer[] = [];
        answer.on('data', (part: Buffer) => answerParts.push(part));
        answer.on('end', () => {
          const text = Buffer.concat(answerParts).toString('utf8');
          const contentType = String(req.headers['content-type'] ?? '');
          recorded.push({
            method: req.method ?? 'GET',
            path: (req.url ?? '').split('?')[0] ?? '',
            headers: Object.fromEntries(
              KEPT_HEADERS.filter((name) => req.headers[name] !== undefined).map((name) => [
                name,
                String(req.headers[name]),
              ]),
            ),
            ...(body.length === 0
              ? {}
              : contentType.startsWith('multipart/')
                ? { base64: body.toString('base64') }
                : { json: JSON.parse(body.toString('utf8')) }),
            status: answer.statusCode ?? 0,
            answer: text ? JSON.parse(text) : null,
          });
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(text);
        });
      });
      forwarded.on('error', () => res.destroy());
      forwarded.end(body);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  return { url, recorded, close: () => new Promise<void>((resolve) => proxy.close(() => resolve())) };
}

export interface ZipEntry {
  name: string;
  data?: Buffer;
  /** Unix mode, kept in the entry's external attributes (0o120777: a symbolic link). */
  mode?: number;
  /** Deflate (default) or store. */
  store?: boolean;
  /** What the headers claim unpacked, when it is not the truth (the > 100 MiB archive without its bytes). */
  declaredSize?: number;
}

/**
 * A tiny ZIP writer for hostile archives (no dependency): local headers, data, the central directory and its end, as
 * APPNOTE describes them, with whatever names, modes and sizes a test wants.
 */
export function zipArchive(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const data = entry.data ?? Buffer.alloc(0);
    const packed = entry.store ? data : deflateRawSync(data);
    const name = Buffer.from(entry.name, 'utf8');
    const crc = crc32(data);
    const size = entry.declaredSize ?? data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(entry.store ? 0 : 8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, packed);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by unix, so the mode in the external attributes counts
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(entry.store ? 0 : 8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((entry.mode ?? 0o100644) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += 30 + name.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 8);
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** A bundle as sentry-cli makes one: its files under files/_/_/ and a manifest naming them. */
export function bundleArchive(files: Record<string, { url: string; type: string; data: string; debugId?: string }>) {
  const manifest = {
    org: 'acme',
    files: Object.fromEntries(
      Object.entries(files).map(([path, file]) => [
        path,
        { url: file.url, type: file.type, headers: file.debugId ? { 'debug-id': file.debugId } : {} },
      ]),
    ),
  };
  return zipArchive([
    ...Object.entries(files).map(([name, file]) => ({ name, data: Buffer.from(file.data) })),
    { name: 'manifest.json', data: Buffer.from(JSON.stringify(manifest)) },
  ]);
}

export const sha1 = (data: Buffer) => createHash('sha1').update(data).digest('hex');

/** Uploads chunks as sentry-cli does: multipart, `file_gzip` parts named by the SHA-1 of their uncompressed bytes. */
export async function uploadChunks(server: TestServer, token: string, org: string, chunks: Buffer[], names?: string[]) {
  const form = new FormData();
  for (const [index, chunk] of chunks.entries())
    form.append('file_gzip', new Blob([gzipSync(chunk)]), names?.[index] ?? sha1(chunk));
  const response = await fetch(`${server.url}/api/0/organizations/${org}/chunk-upload/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  return { status: response.status, body: await response.json() };
}

/** Asks `assemble` until the bundle is no longer being assembled, as `sentry-cli --wait` does. */
export async function assembleBundle(server: TestServer, token: string, org: string, archive: Buffer, extra = {}) {
  const body = { checksum: sha1(archive), chunks: chunksOf(archive).map(sha1), projects: ['shop'], ...extra };
  for (let attempt = 0; ; attempt++) {
    const reply = await server.call('POST', `/api/0/organizations/${org}/artifactbundle/assemble/`, { token, body });
    if (reply.status !== 200 || reply.body.state !== 'assembling' || attempt > 100) return reply;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** An archive cut as sentry-cli cuts it, in chunks of the server's chunk size (8 MiB). */
const chunksOf = (archive: Buffer) => {
  const chunks: Buffer[] = [];
  for (let start = 0; start < archive.length; start += 8 * 1024 * 1024)
    chunks.push(archive.subarray(start, start + 8 * 1024 * 1024));
  return chunks;
};

/** Uploads an archive's chunks (four a request) and assembles it: the final answer of `assemble`. */
export async function uploadArchive(server: TestServer, token: string, org: string, archive: Buffer) {
  const chunks = chunksOf(archive);
  for (let start = 0; start < chunks.length; start += 4) {
    const uploaded = await uploadChunks(server, token, org, chunks.slice(start, start + 4));
    expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(200);
  }
  return assembleBundle(server, token, org, archive);
}
