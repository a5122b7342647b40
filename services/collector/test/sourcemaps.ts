// What the source-map upload tests share: a team with an org token of scope releases, a small app minified by esbuild
// with its map, and a recording proxy that keeps what a real client sends (redacted) for the replay test.

import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { expect } from 'vitest';
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
  await build({
    entryPoints: [join(dir, 'app.js')],
    bundle: true,
    minify: true,
    sourcemap: true,
    format: 'iife',
    outfile: join(dir, 'dist', 'app.min.js'),
    logLevel: 'silent',
  });
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
