// The OpenAPI description of what the service serves outside the tRPC router: the Sentry SDKs' endpoints (Express,
// services/collector/src/sentry) and the browser SDK file. Listed here so the document covers every path.
import { type ErrorCode, publicKeyPattern, sentryLimits } from '@collector/domain';
import { sentryApiPaths } from './openapi-sentry-api';
import { sentryArtifactPaths } from './openapi-sentry-artifacts';

type ErrorResponses = (codes: ErrorCode[], options?: { ingestion?: boolean }) => Record<string, unknown>;

const SENTRY_ERRORS: ErrorCode[] = [
  'INVALID_JSON',
  'VALIDATION_FAILED',
  'UNKNOWN_APP_KEY',
  'METHOD_NOT_ALLOWED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMITED',
];

const projectId = {
  name: 'projectId',
  in: 'path',
  required: true,
  description: "The number at the end of the app's DSN",
  schema: { type: 'integer', minimum: 1, maximum: 999_999_999_999_999 },
};
const sentryKey = {
  name: 'sentry_key',
  in: 'query',
  required: false,
  description: "The DSN's public key (or send it in X-Sentry-Auth, or for envelopes in the envelope header's dsn)",
  schema: { type: 'string', pattern: publicKeyPattern.source, minLength: 32, maxLength: 32 },
};
const sentryAuth = {
  name: 'X-Sentry-Auth',
  in: 'header',
  required: false,
  description: '`Sentry sentry_key=<publicKey>, sentry_version=7, sentry_client=...`',
  schema: { type: 'string', maxLength: 1024 },
};
const contentEncoding = {
  name: 'Content-Encoding',
  in: 'header',
  required: false,
  schema: { type: 'string', enum: ['identity', 'gzip', 'deflate', 'br'] },
};

const answer = {
  description:
    'Stored (committed), or stored before under the same event_id: the event id. `{}` when the envelope held no event.',
  content: {
    'application/json': {
      schema: {
        type: 'object',
        properties: {
          id: {
            type: 'string',
            maxLength: 64,
            description: "The Sentry event_id (the collector's eventId is evt_<id>)",
          },
        },
        additionalProperties: false,
      },
    },
  },
};

function sentryOperation(errorResponses: ErrorResponses, kind: 'envelope' | 'store') {
  const responses = errorResponses(SENTRY_ERRORS, { ingestion: true }) as Record<
    string,
    { headers?: Record<string, unknown> }
  >;
  // Every answer with Retry-After carries it (services/collector/src/sentry/routes.ts).
  for (const status of ['429', '503']) {
    const response = responses[status];
    if (!response) continue;
    response.headers = {
      ...response.headers,
      'X-Sentry-Rate-Limits': {
        description: '`<seconds>::organization`: what Sentry SDKs read to hold their sends',
        schema: { type: 'string', maxLength: 64 },
      },
    };
  }
  const body =
    kind === 'envelope'
      ? {
          type: 'string',
          maxLength: sentryLimits.decodedBytes,
          description:
            'A Sentry envelope: a header line, then items (header line, payload by `length` or up to the next newline)',
        }
      : { type: 'object', description: 'One Sentry event as JSON', additionalProperties: true };
  const mediaTypes =
    kind === 'envelope'
      ? ['application/x-sentry-envelope', 'text/plain', 'application/octet-stream']
      : ['application/json', 'text/plain', 'application/octet-stream'];
  return {
    post: {
      operationId: kind === 'envelope' ? 'sentry-envelope' : 'sentry-store',
      summary: kind === 'envelope' ? 'Ingest a Sentry envelope' : 'Ingest a Sentry event (older SDKs)',
      description:
        (kind === 'envelope'
          ? "What Sentry SDKs send, unmodified, to the app's DSN. Event items are stored; every other item type is skipped. At most one event per envelope. "
          : 'One JSON event, as older Sentry SDKs (python sentry-sdk 1.x) send it. ') +
        `The path is served with and without the trailing slash (SDKs send it with one); any content type is taken. Limits: ${sentryLimits.wireBytes} bytes on the wire, ` +
        `${kind === 'envelope' ? sentryLimits.decodedBytes : sentryLimits.eventBytes} decompressed (checked while decompressing), ${sentryLimits.eventBytes} per event. ` +
        'The event is mapped to the collector\'s event (README, "Use a Sentry SDK") and judged, grouped, rate limited and stored like a batch event; ' +
        'one it refuses is a 400 VALIDATION_FAILED. A retried event_id is stored once. CORS: any origin.',
      tags: ['ingestion'],
      security: [],
      parameters: [projectId, sentryKey, sentryAuth, contentEncoding],
      requestBody: { required: true, content: Object.fromEntries(mediaTypes.map((type) => [type, { schema: body }])) },
      responses: { '200': answer, ...responses },
    },
  };
}

/** Path items to add to the document: both Sentry endpoints, Sentry's web API (/api/0/) and GET /sdk/collector.min.js. */
export function pathsServedOutsideTheRouter(errorResponses: ErrorResponses): Record<string, unknown> {
  return {
    ...sentryApiPaths(),
    ...sentryArtifactPaths(),
    '/api/{projectId}/envelope': sentryOperation(errorResponses, 'envelope'),
    '/api/{projectId}/store': sentryOperation(errorResponses, 'store'),
    '/sdk/collector.min.js': {
      get: {
        operationId: 'browser-sdk',
        summary: 'The browser SDK for a <script> tag',
        description:
          'Built from the current sources at start; brotli or gzip as Accept-Encoding allows; ETag and Cache-Control: public, max-age=3600; loadable from any origin.',
        tags: ['sdk'],
        security: [],
        responses: {
          '200': {
            description: 'The script (global `Collector`)',
            content: { 'text/javascript': { schema: { type: 'string', maxLength: 1_000_000 } } },
          },
          '304': { description: 'Not modified (If-None-Match matched the ETag)' },
          ...errorResponses(['NOT_FOUND']),
        },
      },
    },
  };
}
