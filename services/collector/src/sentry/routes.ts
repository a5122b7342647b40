// POST /api/<projectId>/envelope/ and /api/<projectId>/store/: where Sentry SDKs send events, unmodified. Reads the
// body (./envelope.ts), finds the key it names, and hands both to ingestion (packages/api/src/ingestion), which does
// the rest; the answer is Sentry's.
import { type CheckedApp, contractError, type Ingestion, toAppError } from '@collector/api';
import { parseDsn } from '@collector/domain';
import cors from 'cors';
import { type Request, type RequestHandler, Router } from 'express';
import { sendJson } from '../errors';
import { heldBytes, readEnvelope, readStoreBody, type SentryEnvelope } from './envelope';

const SENTRY_PATHS = ['/api/:projectId/envelope', '/api/:projectId/store'];

/** `X-Sentry-Auth: Sentry sentry_key=<key>, sentry_version=7, sentry_client=...`: its sentry_key. */
function keyFromAuthHeader(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const fields = header.replace(/^\s*sentry\s+/i, '');
  for (const field of fields.split(',')) {
    const [name, ...value] = field.split('=');
    if (name?.trim().toLowerCase() === 'sentry_key') return value.join('=').trim() || undefined;
  }
  return undefined;
}

function keyFromRequest(req: Request): string | undefined {
  // The query parser keeps every value as a list of strings (rest-adapter.ts); a repeated key takes the first.
  const query = req.query as Record<string, string[] | string | undefined>;
  const fromQuery = Array.isArray(query.sentry_key) ? query.sentry_key[0] : query.sentry_key;
  return fromQuery || keyFromAuthHeader(req.get('x-sentry-auth'));
}

// SDKs on any page post here: the headers they send are allowed, and the rate-limit headers they honour are exposed.
const sentryCors = cors({
  origin: '*',
  methods: ['POST'],
  allowedHeaders: ['x-sentry-auth', 'content-type', 'content-encoding', 'authorization', 'sentry-trace', 'baggage'],
  exposedHeaders: ['Retry-After', 'X-Sentry-Rate-Limits'],
  maxAge: 86_400,
});

export function createSentryRoutes(ingestion: Ingestion): Router {
  const router = Router();
  router.use(SENTRY_PATHS, sentryCors);

  const handle =
    (read: (req: Request) => Promise<SentryEnvelope>, maxHeldBytes: number): RequestHandler =>
    async (req, res, next) => {
      // The app, once a key in the URL or header was found good: a body refused as too large is counted against it.
      let app: CheckedApp | undefined;
      try {
        // First of all: a refusal costs no look-up and leaves the body unread.
        if (!ingestion.admit(req, res, maxHeldBytes)) throw ingestion.refusal;
        const projectId = String(req.params.projectId);
        const publicKey = keyFromRequest(req);
        // A key in the URL or header is checked before the body is read: a wrong one costs nothing more.
        if (publicKey !== undefined) app = await ingestion.check({ projectId, publicKey });
        const envelope = await read(req);
        // Read: from here on the request holds what was kept of its body, not the most it might have kept.
        ingestion.settle(res, envelope.keptBytes);
        const dsn = typeof envelope.header.dsn === 'string' ? parseDsn(envelope.header.dsn) : undefined;
        const result = await ingestion.ingest(app ?? { projectId, publicKey: dsn?.publicKey }, {
          format: 'sentry',
          events: envelope.events,
          skippedItems: envelope.skippedItems,
        });
        // A Sentry SDK reads no per-event answer: an event the collector's rules reject is a 400 saying why.
        const rejection = result.rejected[0];
        if (rejection) {
          throw contractError('VALIDATION_FAILED', { details: [{ path: 'event', message: rejection.message }] });
        }
        // The answer's id is the Sentry event_id (an envelope holds at most one event).
        sendJson(res, 200, envelope.events[0] ? { id: envelope.events[0].eventId } : {});
      } catch (error) {
        const appError = toAppError(error);
        if (appError.code === 'PAYLOAD_TOO_LARGE') ingestion.tooLarge(app);
        // Sentry SDKs read this header whatever the status (sentry-python reads Retry-After only on a 429), and hold
        // every send for its seconds: on a 429 (the app's rate limit) and on a 503 (ingestion at its limit of bytes in
        // flight, the database away).
        if (appError.retryAfterSeconds !== undefined)
          res.setHeader('X-Sentry-Rate-Limits', `${appError.retryAfterSeconds}::organization`);
        next(appError);
      }
    };

  router.post('/api/:projectId/envelope', handle(readEnvelope, heldBytes.envelope));
  router.post('/api/:projectId/store', handle(readStoreBody, heldBytes.store));
  router.all(SENTRY_PATHS, (_req, res, next) => {
    res.setHeader('Allow', 'POST');
    next(contractError('METHOD_NOT_ALLOWED'));
  });
  return router;
}
