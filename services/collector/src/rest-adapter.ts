// REST in front of the tRPC router: each /api path of the route table (derived from the procedures' meta) is answered
// by calling its procedure through a tRPC caller. The contract's edges live here: 404 vs 405, content types and
// encodings, body limits, strict query strings, success statuses; every failure goes to the one error writer. The
// batch endpoint's body is read under ingestion's budget, and a body refused as too large is reported to ingestion
// with the appKey its first bytes name; the procedure does the rest (packages/api/src/ingestion).
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  appRouter,
  type Context,
  contractError,
  createCallerFactory,
  type Ingestion,
  pathParameters,
  queryValue,
  type RestRoute,
  restRoutes,
  routesForPath,
  toAppError,
} from '@collector/api';
import { type AppError, limits, pruneNesting } from '@collector/domain';
import cors from 'cors';
import express, { type NextFunction, type Request, type Response, Router } from 'express';
import { sendJson } from './errors';
import { appKeyInPrefix, keepFirstChunk, readFirstChunk } from './oversize';

const INGEST_PATH = '/api/events/batch';

/**
 * Express's query parser, replaced: every value becomes an array of strings, so "" stays "" (never a default) and a
 * repeated key stays an array the schema refuses.
 */
export function parseQueryString(query: string): Record<string, string[]> {
  const parsed: Record<string, string[]> = Object.create(null);
  for (const [key, value] of new URLSearchParams(query)) {
    const values = parsed[key];
    if (values) values.push(value);
    else parsed[key] = [value];
  }
  return parsed;
}

/** The query as the route's input schema reads it: one value as itself (a number where the schema takes one), repeated ones as a list. */
function queryInput(route: RestRoute, query: Record<string, string[]>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const key in query) {
    const values = query[key] as string[];
    input[key] = values.length === 1 ? queryValue(route, key, values[0] as string) : values;
  }
  return input;
}

const hasBody = (req: IncomingMessage) =>
  req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';

/** body-parser's failures, in the contract's words. */
function bodyError(error: { type?: string; status?: number }): AppError {
  switch (error.type) {
    case 'entity.too.large':
      return contractError('PAYLOAD_TOO_LARGE');
    case 'encoding.unsupported':
      return contractError('UNSUPPORTED_MEDIA_TYPE', {
        details: [{ path: 'Content-Encoding', message: 'send identity, gzip, deflate or br' }],
      });
    case 'charset.unsupported':
      return contractError('UNSUPPORTED_MEDIA_TYPE', { details: [{ path: 'Content-Type', message: 'send UTF-8' }] });
    case 'entity.parse.failed':
      return contractError('INVALID_JSON');
    default:
      // Truncated or corrupt streams (a broken gzip body, a short read): still the body's fault, not ours.
      return error.status && error.status < 500 ? contractError('INVALID_JSON') : toAppError(error);
  }
}

/**
 * A JSON body of at most `limitBytes` (after decompression). With `ingestion`, the body's cost is reserved in its
 * budget before it is read and lowered to its size once read, over budget it is not read at all, and a body refused
 * for size is reported with the appKey found in its first bytes (oversize.ts), if any.
 */
function parseBody(limitBytes: number, ingestion?: Ingestion) {
  const onTooLarge =
    ingestion && ((appKey: string | undefined) => ingestion.tooLarge(appKey === undefined ? undefined : { appKey }));
  const json = express.json({
    limit: limitBytes,
    inflate: true,
    strict: true,
    type: () => true,
    // The body read and decompressed, before it is parsed: a compressed one now holds its size, not the most it might.
    ...(ingestion
      ? { verify: (_req: IncomingMessage, res: ServerResponse, body: Buffer) => ingestion.settle(res, body.length) }
      : {}),
  });
  const encodingOf = (req: Request) => req.headers['content-encoding'];
  return (req: Request, res: Response, next: NextFunction) => {
    if (!hasBody(req)) {
      req.body = {};
      return next();
    }
    // Refuse a declared oversize body before reading it (but its first chunk, to say whose it was); a compressed one
    // is checked as it inflates.
    if (Number(req.headers['content-length'] ?? 0) > limitBytes) {
      if (!onTooLarge) return next(contractError('PAYLOAD_TOO_LARGE'));
      return void readFirstChunk(req).then((chunk) => {
        onTooLarge(appKeyInPrefix(chunk, encodingOf(req)));
        next(contractError('PAYLOAD_TOO_LARGE'));
      });
    }
    // express.json holds the whole body, decompressed, until it is parsed: that, at most limitBytes, is its cost.
    if (ingestion && !ingestion.admit(req, res, limitBytes)) return next(ingestion.refusal);
    const firstChunk = onTooLarge ? keepFirstChunk(req) : undefined;
    json(req, res, (error?: unknown) => {
      if (error) {
        const appError = bodyError(error as { type?: string });
        if (appError.code === 'PAYLOAD_TOO_LARGE' && onTooLarge)
          onTooLarge(appKeyInPrefix(firstChunk?.(), encodingOf(req)));
        return next(appError);
      }
      // Body > events > event: anything deeper than an event may nest is cut, so no later step (zod, a log
      // serialiser) recurses a million levels; the cut still reads as too deep, and that event is rejected.
      pruneNesting(req.body, limits.nestingDepth + 3);
      next();
    });
  };
}

type ProcedureCall = (input: unknown) => Promise<unknown>;

export function createRestAdapter(createContext: (opts: { req: Request }) => Context, ingestion: Ingestion): Router {
  const createCaller = createCallerFactory(appRouter);
  // Each procedure's place in the caller ("issues.list"), split once here rather than per request.
  const segments = new Map(restRoutes.map((route) => [route, route.procedurePath.split('.')]));
  const procedureOf = (route: RestRoute, req: Request): ProcedureCall => {
    let procedure: unknown = createCaller(createContext({ req }));
    for (const segment of segments.get(route) ?? []) procedure = (procedure as Record<string, unknown>)[segment];
    return procedure as ProcedureCall;
  };
  const ingestBody = parseBody(limits.ingestBodyBytes, ingestion);
  const jsonBody = parseBody(limits.jsonBodyBytes);

  async function answer(route: RestRoute, req: Request, res: Response, next: NextFunction) {
    try {
      let input: unknown;
      if (route.takesInput) {
        const parameters = pathParameters(route, req.path);
        input = route.method === 'GET' ? queryInput(route, req.query as Record<string, string[]>) : req.body;
        // The body is passed as parsed (no copy of up to 1 MiB) unless path parameters must join it.
        if (parameters && Object.keys(parameters).length > 0) input = { ...(input as object), ...parameters };
      }
      const output = await procedureOf(route, req)(input);
      if (route.status === 204) res.status(204).end();
      else sendJson(res, route.status, output);
    } catch (error) {
      next(error);
    }
  }

  const rest = Router();
  // Any page may send events (SDKs, sendBeacon); the dashboard endpoints stay same-origin.
  // Retry-After is exposed so a browser SDK on another origin can honour 429 and 503.
  rest.use(
    INGEST_PATH,
    cors({
      origin: '*',
      methods: ['POST'],
      allowedHeaders: ['Content-Type', 'Content-Encoding'],
      exposedHeaders: ['Retry-After', 'X-Request-Id'],
      maxAge: 86_400,
    }),
  );

  rest.use((req, res, next) => {
    const routes = routesForPath(req.path);
    const route = routes.find((candidate) => candidate.method === req.method);
    if (routes.length === 0) return next(contractError('NOT_FOUND'));
    if (!route) {
      res.setHeader('Allow', routes.map((candidate) => candidate.method).join(', '));
      return next(contractError('METHOD_NOT_ALLOWED'));
    }
    if (route.method === 'GET') return void answer(route, req, res, next);

    if (hasBody(req) && !route.contentTypes.some((type) => req.is(type))) {
      return next(
        contractError('UNSUPPORTED_MEDIA_TYPE', {
          details: [{ path: 'Content-Type', message: `send ${route.contentTypes.join(' or ')}` }],
        }),
      );
    }
    const parse = route.path === INGEST_PATH ? ingestBody : jsonBody;
    parse(req, res, (error?: unknown) => {
      if (error) return next(error);
      void answer(route, req, res, next);
    });
  });

  return rest;
}
