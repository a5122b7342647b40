// REST in front of the tRPC router: trpc-to-openapi maps the /api paths onto procedures; this file gives it the
// contract's edges, which it lacks: 404 vs 405, content types and encodings, body limits, strict query strings,
// success statuses and the error body.
import type { IncomingMessage } from 'node:http';
import { type Context, appRouter, routesForPath, successStatus, toAppError } from '@collector/api';
import { AppError, limits, pruneNesting } from '@collector/domain';
import cors from 'cors';
import express, { type NextFunction, type Request, type Response, Router } from 'express';
import { createOpenApiNodeHttpHandler } from 'trpc-to-openapi';
import { sendError } from './errors';
import { appKeyInPrefix, keepFirstChunk, readFirstChunk } from './oversize';

const INGEST_PATH = '/api/events/batch';

/**
 * Express's query parser, replaced: every value becomes an array of strings. trpc-to-openapi drops empty
 * values (`limit=` would silently mean "default") but keeps one-element arrays as the string, "" included,
 * so the schema sees exactly what was sent; a repeated key stays an array and fails validation.
 */
export function parseQueryString(query: string): Record<string, string[]> {
  const parsed: Record<string, string[]> = Object.create(null);
  for (const [key, value] of new URLSearchParams(query)) (parsed[key] ??= []).push(value);
  return parsed;
}

const hasBody = (req: IncomingMessage) => req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';

/** body-parser's failures, in the contract's words. */
function bodyError(error: { type?: string; status?: number }): AppError {
  switch (error.type) {
    case 'entity.too.large':
      return new AppError('PAYLOAD_TOO_LARGE', 'the body is over the limit');
    case 'encoding.unsupported':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'unsupported Content-Encoding: send identity, gzip, deflate or br');
    case 'charset.unsupported':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'unsupported charset: send UTF-8');
    case 'entity.parse.failed':
      return new AppError('INVALID_JSON', 'the body is not valid JSON');
    default:
      // Truncated or corrupt streams (a broken gzip body, a short read): still the body's fault, not ours.
      return error.status && error.status < 500 ? new AppError('INVALID_JSON', 'the body could not be read') : toAppError(error);
  }
}

/**
 * trpc-to-openapi builds a fetch Request from each call only for its abort signal, and tRPC fills that Request's
 * body with JSON.stringify(req.body): up to 1 MiB serialised per request and never read (a third of the garbage
 * an ingestion request made in profiles). A non-enumerable toJSON makes that stringify return nothing at once;
 * the input tRPC validates is a spread of req.body, which leaves toJSON behind, so nothing else sees it.
 */
function sparedFromRestringify(body: unknown): void {
  if (body !== null && typeof body === 'object') Object.defineProperty(body, 'toJSON', { value: () => undefined, enumerable: false });
}

/** Told of each body refused as too large, with the appKey found in its first bytes (oversize.ts), if any. */
export type OnTooLarge = (appKey: string | undefined) => void;

function parseBody(limitBytes: number, onTooLarge?: OnTooLarge) {
  const json = express.json({ limit: limitBytes, inflate: true, strict: true, type: () => true });
  const encodingOf = (req: Request) => req.headers['content-encoding'];
  return (req: Request, res: Response, next: NextFunction) => {
    if (!hasBody(req)) {
      req.body = {};
      return next();
    }
    const tooLarge = new AppError('PAYLOAD_TOO_LARGE', 'the body is over the limit');
    // Refuse a declared oversize body before reading it (but its first chunk, to say whose it was); a compressed one
    // is checked as it inflates.
    if (Number(req.headers['content-length'] ?? 0) > limitBytes) {
      if (!onTooLarge) return next(tooLarge);
      return void readFirstChunk(req).then((chunk) => {
        onTooLarge(appKeyInPrefix(chunk, encodingOf(req)));
        next(tooLarge);
      });
    }
    const firstChunk = onTooLarge ? keepFirstChunk(req) : undefined;
    json(req, res, (error?: unknown) => {
      if (error) {
        const appError = bodyError(error as { type?: string });
        if (appError.code === 'PAYLOAD_TOO_LARGE' && onTooLarge) onTooLarge(appKeyInPrefix(firstChunk?.(), encodingOf(req)));
        return next(appError);
      }
      // Body > events > event: anything deeper than an event may nest is cut, so no later step (zod, tRPC's
      // JSON.stringify) recurses a million levels; the cut still reads as too deep, and that event is rejected.
      pruneNesting(req.body, limits.nestingDepth + 3);
      sparedFromRestringify(req.body);
      next();
    });
  };
}

export function createRestAdapter(
  createContext: (opts: { req: Request }) => Context,
  onError: (error: AppError, req: Request) => void,
  onIngestTooLarge?: OnTooLarge,
): Router {
  const failures = new WeakMap<IncomingMessage, AppError>();
  const handle = createOpenApiNodeHttpHandler({
    router: appRouter,
    createContext: ({ req }) => createContext({ req: req as Request }),
    responseMeta: ({ paths, errors }) => (errors.length === 0 && paths?.[0] ? { status: successStatus(paths[0]) } : {}),
    onError: ({ error, req }) => {
      const appError = toAppError(error);
      failures.set(req, appError);
      onError(appError, req as Request);
    },
  });
  const ingestBody = parseBody(limits.ingestBodyBytes, onIngestTooLarge);
  const jsonBody = parseBody(limits.jsonBodyBytes);

  const rest = Router();
  // Any page may send events (SDKs, sendBeacon); the dashboard endpoints stay same-origin.
  // Retry-After is exposed so a browser SDK on another origin can honour 429 and 503.
  rest.use(INGEST_PATH, cors({ origin: '*', methods: ['POST'], allowedHeaders: ['Content-Type', 'Content-Encoding'], exposedHeaders: ['Retry-After'], maxAge: 86_400 }));

  rest.use((req, res, next) => {
    const routes = routesForPath(req.path);
    const route = routes.find((candidate) => candidate.method === req.method);
    if (routes.length === 0) return next(new AppError('NOT_FOUND', `no route ${req.path}`));
    if (!route) {
      res.setHeader('Allow', routes.map((candidate) => candidate.method).join(', '));
      return next(new AppError('METHOD_NOT_ALLOWED', `${req.method} is not allowed here; use ${res.getHeader('Allow')}`));
    }
    if (route.method === 'GET') return handleRoute(req, res);

    if (hasBody(req) && !route.contentTypes.some((type) => req.is(type))) {
      return next(new AppError('UNSUPPORTED_MEDIA_TYPE', `send the body as ${route.contentTypes.join(' or ')}`));
    }
    const parse = route.path === INGEST_PATH ? ingestBody : jsonBody;
    parse(req, res, (error?: unknown) => {
      if (error) return next(error);
      // trpc-to-openapi reads req.body but insists on this exact content type.
      req.headers['content-type'] = 'application/json';
      handleRoute(req, res);
    });
  });

  function handleRoute(req: Request, res: Response) {
    // trpc-to-openapi writes its own error body; swap in the contract's once it has called onError.
    const end = res.end;
    res.end = function (this: Response, ...args: Parameters<Response['end']>) {
      res.end = end;
      const appError = failures.get(req);
      if (!appError) return end.apply(this, args);
      sendError(res, appError);
      return this;
    } as Response['end'];
    void handle(req, res);
  }

  return rest;
}
