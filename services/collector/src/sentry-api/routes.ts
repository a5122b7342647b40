// Sentry's web API under /api/0/, as sentry-cli and the bundler plugins call it with SENTRY_AUTH_TOKEN: a bearer token
// (an API token or a session), Sentry's answers, and its error body `{ detail }` with the contract's statuses.
// What each path answers, and who may ask, is in packages/api (sentry-api.ts, auth/authorize.ts).
import {
  authenticate,
  contractError,
  type IngestBudget,
  type Principal,
  principalKey,
  type RateLimiters,
  type SentryReleaseRequest,
  StatusAnswer,
  sentryAssembleBundle,
  sentryAuthInfo,
  sentryChunkUploadOptions,
  sentryCreateDeploy,
  sentryCreateRelease,
  sentryDeleteRelease,
  sentryGetRelease,
  sentryListDeploys,
  sentryListReleases,
  sentryListRepos,
  sentryOrganization,
  sentryProjects,
  sentryUpdateRelease,
  sentryUploadChunks,
  throttle,
  toAppError,
  uploadLimits,
} from '@collector/api';
import type { Db } from '@collector/db';
import { slugPattern } from '@collector/domain';
import express, { type Request, type Response, Router } from 'express';
import { sendJson } from '../errors';
import type { Logger } from '../logger';

interface SentryApiOptions {
  db: Db;
  rateLimiters: RateLimiters;
  clock: () => number;
  publicUrl: () => string;
  logger: Logger;
  /** Source-map uploads' bytes in flight, apart from ingestion's (UPLOAD_MAX_IN_FLIGHT_BYTES). */
  uploadBudget: IngestBudget;
}

/** A chunk upload's body, up to the upload options' maxRequestSize; past it, 413 without reading the rest. */
async function readUploadBody(req: Request): Promise<Buffer> {
  const encoding = (req.get('content-encoding') ?? 'identity').trim().toLowerCase();
  // sentry-cli compresses each chunk (file_gzip), never the request.
  if (encoding !== 'identity' && encoding !== '')
    throw contractError('VALIDATION_FAILED', { details: [{ path: 'Content-Encoding', message: 'not taken here' }] });
  const tooLarge = () =>
    contractError('PAYLOAD_TOO_LARGE', {
      details: [{ path: '', message: `at most ${uploadLimits.maxRequestSize} bytes a request` }],
    });
  if (Number(req.get('content-length') ?? 0) > uploadLimits.maxRequestSize) throw tooLarge();
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > uploadLimits.maxRequestSize) throw tooLarge();
    parts.push(part);
  }
  return Buffer.concat(parts, size);
}

const BEARER = /^Bearer ([^\s]+)$/i;

/** A JSON body of /api/0/ (release and deploy requests are small); larger ones are refused before they are read. */
const JSON_BODY_BYTES = 64 * 1024;
const jsonBody = express.json({ limit: JSON_BODY_BYTES, strict: true, type: () => true });

export function createSentryApiRoutes(options: SentryApiOptions): Router {
  const router = Router();

  /** Authenticates, throttles and answers; a failure goes out as Sentry's `{ detail }` with the contract's status. */
  const handle =
    (
      answer: (
        caller: { db: Db; principal: Principal; publicUrl: () => string; now: number },
        req: Request,
      ) => Promise<unknown>,
    ) =>
    async (req: Request, res: Response) => {
      try {
        const now = options.clock();
        const address = req.ip ?? 'unknown';
        const token = BEARER.exec(req.get('authorization') ?? '')?.[1];
        const principal = token === undefined ? null : await authenticate(options.db, token, now);
        if (!principal) {
          // Guessing tokens spends the address's budget.
          options.rateLimiters.actionsByAddress.take(`sentry-api:${address}`, 1, now);
          res.setHeader('WWW-Authenticate', 'Bearer');
          sendJson(res, 401, { detail: 'Authentication credentials were not provided or are not valid.' });
          return;
        }
        throttle(options.rateLimiters, 'sentry-api', { user: principalKey(principal), address }, now);
        const answered = await answer({ db: options.db, principal, publicUrl: options.publicUrl, now }, req);
        if (!(answered instanceof StatusAnswer)) sendJson(res, 200, answered);
        else if (answered.body === undefined) res.status(answered.status).end();
        else sendJson(res, answered.status, answered.body);
      } catch (error) {
        const appError = toAppError(error);
        const status = {
          INVALID_JSON: 400,
          VALIDATION_FAILED: 400,
          NOT_FOUND: 404,
          FORBIDDEN: 403,
          CONFLICT: 409,
          PAYLOAD_TOO_LARGE: 413,
          RATE_LIMITED: 429,
          UNAVAILABLE: 503,
        }[appError.code as string];
        if (appError.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(appError.retryAfterSeconds));
        if (status === undefined)
          options.logger.error({ err: appError.cause ?? appError, path: req.path }, 'request failed');
        sendJson(res, status ?? 500, { detail: appError.message });
      }
    };

  // Chunk uploads are multipart, read by their own route under their own budget, before the JSON bodies below: over the
  // budget they are answered 503 + Retry-After with their body unread, and ingestion's budget is never touched.
  router.post('/api/0/organizations/:org/chunk-upload/', (req, res, next) => {
    if (options.uploadBudget.admit(req, res, uploadLimits.maxRequestSize)) return next();
    res.setHeader('Retry-After', String(options.uploadBudget.refusal.retryAfterSeconds ?? 1));
    sendJson(res, 503, { detail: options.uploadBudget.refusal.message });
  });
  router.post(
    '/api/0/organizations/:org/chunk-upload/',
    handle((caller, req) =>
      sentryUploadChunks(
        caller,
        orgSlug(req),
        req.get('content-type') ?? '',
        () => readUploadBody(req),
        options.clock(),
      ),
    ),
  );

  // Bodies of POST and PUT, as JSON whatever their content type (sentry-cli sends application/json); an unreadable
  // one is Sentry's 400 `{ detail }`, one over the limit 413.
  router.use('/api/0/', (req, res, next) => {
    if (req.method !== 'POST' && req.method !== 'PUT') return next();
    jsonBody(req, res, (error?: unknown) => {
      if (error === undefined) return next();
      const status = (error as { status?: number }).status === 413 ? 413 : 400;
      sendJson(res, status, {
        detail: status === 413 ? 'The request body is too large.' : 'The body is not valid JSON.',
      });
    });
  });

  const orgSlug = (req: Request) => {
    const slug = String(req.params.org);
    // A slug that cannot exist names no organization: the same 404 as one that does not.
    return slugPattern.test(slug) ? slug : '-';
  };

  router.get(
    '/api/0/',
    handle(async (caller) => sentryAuthInfo(caller)),
  );
  router.get(
    '/api/0/organizations/:org/',
    handle((caller, req) => sentryOrganization(caller, orgSlug(req))),
  );
  router.get(
    '/api/0/organizations/:org/projects/',
    handle((caller, req) => sentryProjects(caller, orgSlug(req))),
  );
  // Releases and deploys: the organization's paths (sentry-cli 3.x, and 2.x with several projects) and a project's
  // (2.x with one). A version arrives in one path segment, `@` unencoded and `+` as %2B (Express decodes both).
  type Caller = Parameters<Parameters<typeof handle>[0]>[0];
  const release =
    (answer: (caller: Caller, request: SentryReleaseRequest) => Promise<unknown>) =>
    async (caller: Caller, req: Request) => {
      return answer(caller, {
        org: orgSlug(req),
        ...(req.params.project !== undefined ? { project: String(req.params.project) } : {}),
        ...(req.params.version !== undefined ? { version: String(req.params.version) } : {}),
        query: req.query as Record<string, unknown>,
        body: req.body,
      });
    };
  for (const base of ['/api/0/organizations/:org/releases/', '/api/0/projects/:org/:project/releases/']) {
    router.get(base, handle(release(sentryListReleases)));
    router.post(base, handle(release(sentryCreateRelease)));
    router.get(`${base}:version/`, handle(release(sentryGetRelease)));
    router.put(`${base}:version/`, handle(release(sentryUpdateRelease)));
    router.delete(`${base}:version/`, handle(release(sentryDeleteRelease)));
  }
  router.get('/api/0/organizations/:org/releases/:version/deploys/', handle(release(sentryListDeploys)));
  router.get('/api/0/organizations/:org/repos/', handle(release(sentryListRepos)));
  router.post('/api/0/organizations/:org/releases/:version/deploys/', handle(release(sentryCreateDeploy)));
  router.get(
    '/api/0/organizations/:org/chunk-upload/',
    handle((caller, req) => sentryChunkUploadOptions(caller, orgSlug(req))),
  );
  router.post(
    '/api/0/organizations/:org/artifactbundle/assemble/',
    handle((caller, req) => sentryAssembleBundle(caller, orgSlug(req), req.body, options.clock())),
  );
  // Older sentry-cli 2.x without a project assembles through the release: the same bundles, bound to the path's release.
  router.post(
    '/api/0/organizations/:org/releases/:version/assemble/',
    handle((caller, req) =>
      sentryAssembleBundle(caller, orgSlug(req), req.body, options.clock(), { release: String(req.params.version) }),
    ),
  );
  // Any other /api/0/ path: Sentry's body, not the REST adapter's.
  router.all(/^\/api\/0(\/.*)?$/, (_req, res) => {
    sendJson(res, 404, { detail: 'The requested resource does not exist' });
  });
  return router;
}
