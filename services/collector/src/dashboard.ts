// Serving the built dashboard (services/dashboard/dist) at /: its files, and index.html for the single-page app's
// own paths. API paths never reach it, so they keep their JSON answers (404 included).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type RequestHandler } from 'express';
import type { Logger } from './logger';

export const defaultDashboardDir = fileURLToPath(new URL('../../dashboard/dist', import.meta.url));

const API_PREFIXES = ['/api', '/trpc', '/healthz', '/readyz'];

/** Express matches paths case-insensitively, so /API/x is an API path too. */
const isApiPath = (path: string) => {
  const lower = path.toLowerCase();
  return API_PREFIXES.some((prefix) => lower === prefix || lower.startsWith(`${prefix}/`));
};

/**
 * Browsers send `text/html` in Accept when they load a page; curl and fetch send `*` + `/*`, so an unknown
 * path still gets the contract's JSON 404 from them.
 */
const wantsPage = (accept: string | undefined) => accept !== undefined && /(^|,)\s*text\/html\s*(;|,|$)/i.test(accept);

const PAGE_HEADERS = {
  'Cache-Control': 'no-cache',
  // Everything the dashboard loads comes from here: its bundle, and the API it calls.
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

export function serveDashboard(options: { dir: string; logger: Logger }): RequestHandler {
  const { dir, logger } = options;
  const indexFile = join(dir, 'index.html');
  if (!existsSync(indexFile))
    logger.info(`dashboard not built (no ${indexFile}): serving the API only; \`pnpm build\` builds it`);

  const files = express.static(dir, {
    index: false,
    redirect: false,
    dotfiles: 'ignore',
    setHeaders: (res, path) => {
      if (path.endsWith('.html')) {
        for (const [name, value] of Object.entries(PAGE_HEADERS)) res.setHeader(name, value);
        return;
      }
      res.setHeader('X-Content-Type-Options', 'nosniff');
      // Bundles carry a content hash in their names: cache them for good. Anything else: ask each time.
      res.setHeader(
        'Cache-Control',
        path.startsWith(join(dir, 'assets')) ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    },
  });

  // Compressed for browsers that take it by the app's one compression of every read (app.ts).
  return (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || isApiPath(req.path)) return next();
    serve(req, res, next);
  };

  function serve(
    req: Parameters<RequestHandler>[0],
    res: Parameters<RequestHandler>[1],
    next: Parameters<RequestHandler>[2],
  ) {
    const page = () => {
      // The root is the dashboard for anyone; other unknown paths only for a browser's page load.
      if (req.path !== '/' && !wantsPage(req.headers.accept)) return next();
      // Looked up on each request, not once at start: a build finished after start is served at once.
      res.sendFile(indexFile, { headers: PAGE_HEADERS, dotfiles: 'deny' }, (error) => {
        if (error && !res.headersSent) next(); // not built: the JSON 404 that follows is the honest answer
      });
    };
    if (req.path === '/' || req.path.endsWith('/')) return page();
    files(req, res, (error?: unknown) => (error ? next(error) : page()));
  }
}
