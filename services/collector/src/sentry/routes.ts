// POST /api/<projectId>/envelope/ and /api/<projectId>/store/: where Sentry SDKs send events, unmodified. Reads the
// body (./envelope.ts), finds the key it names, and hands both to ingestion (packages/api/src/ingestion), which does
// the rest; the answer is Sentry's.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type CheckedApp, contractError, type Ingestion, toAppError } from '@collector/api';
import { parseDsn } from '@collector/domain';
import cors from 'cors';
import { type RequestHandler, Router } from 'express';
import { sendJson } from '../errors';
import { setRequestId } from '../request-id';
import { heldBytes, readEnvelope, readStoreBody, type SentryEnvelope } from './envelope';

const SENTRY_PATHS = ['/api/:projectId/envelope', '/api/:projectId/store'];

/** `X-Sentry-Auth: Sentry sentry_key=<key>, sentry_version=7, sentry_client=...`: one of its fields. */
function authHeaderField(header: string | undefined, wanted: string): string | undefined {
  if (!header) return undefined;
  const fields = header.replace(/^\s*sentry\s+/i, '');
  for (const field of fields.split(',')) {
    const [name, ...value] = field.split('=');
    if (name?.trim().toLowerCase() === wanted) return value.join('=').trim() || undefined;
  }
  return undefined;
}

/** What a request says of itself: the key it names, and the SDK that sent it. */
interface SentryAuth {
  publicKey: string | undefined;
  /**
   * `sentry_client` (`raven-js/3.22.1`): the SDK's name and version, which old SDKs send only there, not in the event's
   * `sdk`.
   */
  client: string | undefined;
}

/**
 * The key and client from the query string (`query`, the URL's part after `?`) or else X-Sentry-Auth, the query parsed
 * once. URLSearchParams.get takes the first of a repeated key, as the REST paths' query parser does.
 */
function authOf(req: IncomingMessage, query: string | undefined): SentryAuth {
  const params = query ? new URLSearchParams(query) : undefined;
  const header = req.headers['x-sentry-auth'];
  const auth = Array.isArray(header) ? header[0] : header;
  return {
    publicKey: params?.get('sentry_key') || authHeaderField(auth, 'sentry_key'),
    client: params?.get('sentry_client') || authHeaderField(auth, 'sentry_client'),
  };
}

const queryOf = (req: IncomingMessage): string | undefined => {
  const url = req.url ?? '';
  const start = url.indexOf('?');
  return start < 0 ? undefined : url.slice(start + 1);
};

// SDKs on any page post here: the headers they send are allowed, and the rate-limit headers they honour are exposed.
const exposedHeaders = ['Retry-After', 'X-Sentry-Rate-Limits'];
const sentryCors = cors({
  origin: '*',
  methods: ['POST'],
  allowedHeaders: ['x-sentry-auth', 'content-type', 'content-encoding', 'authorization', 'sentry-trace', 'baggage'],
  exposedHeaders,
  maxAge: 86_400,
});
/** What sentryCors sets on a POST (not a preflight), set directly on the fast path. */
const postCorsHeaders = [
  ['Access-Control-Allow-Origin', '*'],
  ['Access-Control-Expose-Headers', exposedHeaders.join(',')],
] as const;

type Reader = (req: IncomingMessage) => Promise<SentryEnvelope>;
const readers: Record<'envelope' | 'store', { read: Reader; maxHeldBytes: number }> = {
  envelope: { read: readEnvelope, maxHeldBytes: heldBytes.envelope },
  store: { read: readStoreBody, maxHeldBytes: heldBytes.store },
};

/**
 * Reads the body and hands its events to ingestion; resolves to the event's id once committed, or throws the first
 * rejection as a 400. Not async on purpose: only the id is kept while the request waits for its group's commit, not
 * the parsed envelope (hundreds of requests wait at once under load, and what they hold is copied by every scavenge).
 */
function readAndIngest(
  ingestion: Ingestion,
  reader: (typeof readers)[keyof typeof readers],
  app: CheckedApp | undefined,
  projectId: string,
  client: string | undefined,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<string | undefined> {
  return reader.read(req).then((envelope) => {
    // Read: from here on the request holds what was kept of its body, not the most it might have kept.
    ingestion.settle(res, envelope.keptBytes);
    const dsn = typeof envelope.header.dsn === 'string' ? parseDsn(envelope.header.dsn) : undefined;
    // The answer's id is the Sentry event_id (an envelope holds at most one event).
    const eventId = envelope.events[0]?.eventId;
    return ingestion
      .ingest(app ?? { projectId, publicKey: dsn?.publicKey }, {
        format: 'sentry',
        events: client ? envelope.events.map((item) => ({ ...item, client })) : envelope.events,
        skippedItems: envelope.skippedItems,
        feedback: envelope.feedback,
        clientDiscards: envelope.clientDiscards,
      })
      .then((result) => {
        // A Sentry SDK reads no per-event answer: an event the collector's rules reject is a 400 saying why.
        const rejection = result.rejected[0];
        if (rejection) {
          throw contractError('VALIDATION_FAILED', { details: [{ path: 'event', message: rejection.message }] });
        }
        return eventId;
      });
  });
}

/** One POST to an envelope or store endpoint, its project and key already taken from the URL or header. */
async function handlePost(
  ingestion: Ingestion,
  reader: (typeof readers)[keyof typeof readers],
  projectId: string,
  { publicKey, client }: SentryAuth,
  req: IncomingMessage,
  res: ServerResponse,
  fail: (error: unknown) => void,
): Promise<void> {
  // The app, once a key in the URL or header was found good: a body refused as too large is counted against it.
  let app: CheckedApp | undefined;
  try {
    // First of all: a refusal costs no look-up and leaves the body unread.
    if (!ingestion.admit(req, res, reader.maxHeldBytes)) throw ingestion.refusal;
    // A key in the URL or header is checked before the body is read: a wrong one costs nothing more.
    if (publicKey !== undefined) app = await ingestion.check({ projectId, publicKey });
    const eventId = await readAndIngest(ingestion, reader, app, projectId, client, req, res);
    sendJson(res, 200, eventId !== undefined ? { id: eventId } : {});
  } catch (error) {
    const appError = toAppError(error);
    if (appError.code === 'PAYLOAD_TOO_LARGE') ingestion.tooLarge(app);
    // Sentry SDKs read this header whatever the status (sentry-python reads Retry-After only on a 429), and hold
    // every send for its seconds: on a 429 (the app's rate limit) and on a 503 (ingestion at its limit of bytes in
    // flight, the database away).
    if (appError.retryAfterSeconds !== undefined)
      res.setHeader('X-Sentry-Rate-Limits', `${appError.retryAfterSeconds}::organization`);
    fail(appError);
  }
}

/** `/api/<digits>/envelope/` or `/store/`, slash optional, then the query if any: the form every SDK sends. */
const FAST_PATH = /^\/api\/([1-9]\d{0,14})\/(envelope|store)\/?(?:\?(.*))?$/s;

/**
 * The Sentry POSTs in the form SDKs send them, taken before Express: one request per event made Express's request
 * set-up, the router's walk over every layer, cors and the query parser a visible share of the endpoint's CPU. True
 * when it took the request; anything else (a preflight, another method, another spelling of the path) is left to
 * Express and createSentryRoutes, which answer it as before. `fail` answers an error as Express's error handler does.
 */
export function sentryFastPath(
  ingestion: Ingestion,
  fail: (error: unknown, req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== 'POST') return false;
    const match = FAST_PATH.exec(req.url ?? '');
    if (!match) return false;
    setRequestId(req, res);
    for (const [name, value] of postCorsHeaders) res.setHeader(name, value);
    const reader = readers[match[2] as 'envelope' | 'store'];
    const auth = authOf(req, match[3]);
    void handlePost(ingestion, reader, match[1] as string, auth, req, res, (error) => fail(error, req, res));
    return true;
  };
}

export function createSentryRoutes(ingestion: Ingestion): Router {
  const router = Router();
  router.use(SENTRY_PATHS, sentryCors);

  const handle =
    (reader: (typeof readers)[keyof typeof readers]): RequestHandler =>
    (req, res, next) =>
      handlePost(ingestion, reader, String(req.params.projectId), authOf(req, queryOf(req)), req, res, next);

  router.post('/api/:projectId/envelope', handle(readers.envelope));
  router.post('/api/:projectId/store', handle(readers.store));
  router.all(SENTRY_PATHS, (_req, res, next) => {
    res.setHeader('Allow', 'POST');
    next(contractError('METHOD_NOT_ALLOWED'));
  });
  return router;
}
