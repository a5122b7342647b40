// GET /sdk/collector.min.js: the collector serves its own browser SDK (packages/sdk-browser), so the script-tag
// snippet works as pasted. Built from the current sources when the service starts (esbuild takes a fraction of a
// second), so it is never missing or stale, then held in memory, compressed once with brotli and gzip. esbuild's
// service process is stopped once built (it would stay for the process's life, ~20 MB RSS).
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { contractError } from '@collector/api';
import { buildSdk, IIFE_FILE, stopBuilder } from '@collector/sdk-browser/build';
import type { RequestHandler } from 'express';
import type { Logger } from './logger';

const SDK_PATH = `/sdk/${IIFE_FILE}`;

interface ServedFile {
  type: string;
  etag: string;
  identity: Buffer;
  gzip: Buffer;
  br: Buffer;
}

function served(contents: Buffer, type: string): ServedFile {
  const etag = `"${createHash('sha256').update(contents).digest('base64url').slice(0, 27)}"`;
  return { type, etag, identity: contents, gzip: gzipSync(contents, { level: 9 }), br: brotliCompressSync(contents) };
}

async function buildFiles(): Promise<Map<string, ServedFile>> {
  const outdir = await mkdtemp(path.join(tmpdir(), 'collector-sdk-'));
  try {
    const { iife } = await buildSdk({ outdir });
    const map = await readFile(`${iife.path}.map`);
    return new Map([
      [SDK_PATH, served(await readFile(iife.path), 'text/javascript; charset=utf-8')],
      [`${SDK_PATH}.map`, served(map, 'application/json; charset=utf-8')],
    ]);
  } finally {
    await Promise.all([rm(outdir, { recursive: true, force: true }), stopBuilder()]);
  }
}

/** Prefers brotli, then gzip, as the client's Accept-Encoding allows (q=0 refuses one). */
function encodingFor(acceptEncoding: string | undefined): 'br' | 'gzip' | 'identity' {
  const accepted = new Set(
    (acceptEncoding ?? '')
      .split(',')
      .map((part) => part.trim().toLowerCase())
      .filter((part) => !/;\s*q=0(\.0*)?$/.test(part))
      .map((part) => part.split(';')[0]?.trim()),
  );
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip') || accepted.has('*')) return 'gzip';
  return 'identity';
}

export function serveSdk(logger: Logger): RequestHandler {
  // Started now, awaited by the first request: the service's start does not wait for it.
  const files = buildFiles().catch((error: unknown) => {
    logger.error({ err: error }, `the browser SDK could not be built: ${SDK_PATH} answers 404`);
    return new Map<string, ServedFile>();
  });

  return async (req, res, next) => {
    if (req.path !== SDK_PATH && req.path !== `${SDK_PATH}.map`) return next();
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return next(contractError('METHOD_NOT_ALLOWED'));
    }
    const file = (await files).get(req.path);
    if (!file) return next(contractError('NOT_FOUND'));
    res.setHeader('Content-Type', file.type);
    // Any page may load it, with or without crossorigin="anonymous" (which makes its errors readable).
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // The URL has no version in it: an hour in caches, then a cheap revalidation by ETag.
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.setHeader('ETag', file.etag);
    res.setHeader('Vary', 'Accept-Encoding');
    if (req.headers['if-none-match'] === file.etag) return res.status(304).end();
    const encoding = encodingFor(req.headers['accept-encoding']);
    if (encoding !== 'identity') res.setHeader('Content-Encoding', encoding);
    const body = file[encoding];
    res.setHeader('Content-Length', body.length);
    res.status(200).end(req.method === 'HEAD' ? undefined : body);
  };
}
