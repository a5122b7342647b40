// The OpenAPI description of Sentry's upload API under /api/0/ (sentry-artifacts.ts), as sentry-cli and the bundler
// plugins call it: its answers and its errors are Sentry's (`{ detail }`), not the REST API's ErrorResponse.
import { uploadLimits } from './sentry-artifacts';

const SHA1 = { type: 'string', pattern: '^[0-9a-f]{40}$', minLength: 40, maxLength: 40 };
const org = {
  name: 'org',
  in: 'path',
  required: true,
  description: "The organization's slug",
  schema: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]*$', maxLength: 50 },
};
const security = [{ bearer: [] }, { apiToken: [] }];

/** Sentry's error body, with the statuses each path may answer. */
function detailErrors(statuses: number[]): Record<string, unknown> {
  const schema = {
    type: 'object',
    properties: { detail: { type: 'string', maxLength: 1000 } },
    required: ['detail'],
    additionalProperties: false,
  };
  const said: Record<number, string> = {
    400: 'Not what this path takes (a chunk whose bytes are not its SHA-1, a body out of its limits)',
    401: 'No valid token',
    403: "The token lacks scope releases, or its user's role is under member",
    404: 'No such organization for this caller',
    413: `The body is over ${uploadLimits.maxRequestSize} bytes`,
    429: 'Rate limited (Retry-After)',
    503: 'Over the bytes in flight of uploads (UPLOAD_MAX_IN_FLIGHT_BYTES) or the database unavailable (Retry-After)',
  };
  return Object.fromEntries(
    statuses.map((status) => [
      String(status),
      { description: said[status], content: { 'application/json': { schema } } },
    ]),
  );
}

const assembleRequest = {
  type: 'object',
  required: ['checksum', 'chunks'],
  properties: {
    checksum: { ...SHA1, description: 'The SHA-1 of the whole bundle (the chunks put together)' },
    chunks: {
      type: 'array',
      items: SHA1,
      minItems: 1,
      maxItems: Math.ceil(uploadLimits.maxFileSize / uploadLimits.chunkSize),
    },
    projects: {
      type: 'array',
      items: { type: 'string', minLength: 1, maxLength: 100 },
      maxItems: 100,
      description: "The apps' slugs or project ids; each must be the organization's",
    },
    version: { type: ['string', 'null'], minLength: 1, maxLength: 200, description: 'The release' },
    dist: { type: ['string', 'null'], minLength: 1, maxLength: 64 },
  },
};
const assembleAnswer = {
  description:
    '`not_found` with the chunks this organization does not hold (upload them, then ask again); `assembling` while the ' +
    'bundle is put together in the background (ask again: any collector process answers); `ok` once stored and indexed ' +
    '(at once for a checksum the organization already holds); `error` with why (a hostile or broken archive).',
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: ['state', 'missingChunks', 'detail'],
        properties: {
          state: { type: 'string', enum: ['ok', 'created', 'assembling', 'not_found', 'error'] },
          missingChunks: { type: 'array', items: SHA1, maxItems: 1000 },
          detail: { type: ['string', 'null'], maxLength: 1000 },
        },
      },
    },
  },
};

function assembleOperation(operationId: string, summary: string, extra: object[] = []) {
  return {
    post: {
      operationId,
      summary,
      description:
        'The bundle is a ZIP with Sentry’s manifest.json; its files are indexed by debug ID and by release, dist and URL. ' +
        'Caps: 10,000 entries, 100 MiB unpacked, 50 MiB a file, a compression ratio of 200; paths out of the archive, ' +
        'links, duplicate names, a missing manifest and source maps that do not parse make the state `error`.',
      tags: ['sentry-api'],
      security,
      parameters: [org, ...extra],
      requestBody: { required: true, content: { 'application/json': { schema: assembleRequest } } },
      responses: { '200': assembleAnswer, ...detailErrors([400, 401, 403, 404, 413, 429, 503]) },
    },
  };
}

/** Path items for the document: the chunk-upload options and upload, and the two assemble paths. */
export function sentryArtifactPaths(): Record<string, unknown> {
  return {
    '/api/0/organizations/{org}/chunk-upload/': {
      get: {
        operationId: 'sentry-chunk-upload-options',
        summary: "Sentry's chunk-upload options (sentry-cli reads them before an upload)",
        tags: ['sentry-api'],
        security,
        parameters: [org],
        responses: {
          '200': {
            description:
              '`url` is built on PUBLIC_URL; `accept` lists release_files, artifact_bundles and artifact_bundles_v2, what makes sentry-cli 2.x and 3.x upload artifact bundles by chunks.',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    url: { type: 'string', format: 'uri', maxLength: 2048 },
                    chunkSize: { type: 'integer', const: uploadLimits.chunkSize },
                    chunksPerRequest: { type: 'integer', const: uploadLimits.chunksPerRequest },
                    maxFileSize: { type: 'integer', const: uploadLimits.maxFileSize },
                    maxRequestSize: { type: 'integer', const: uploadLimits.maxRequestSize },
                    concurrency: { type: 'integer', const: uploadLimits.concurrency },
                    hashAlgorithm: { type: 'string', const: 'sha1' },
                    compression: { type: 'array', items: { type: 'string', const: 'gzip' }, maxItems: 1 },
                    accept: { type: 'array', items: { type: 'string', maxLength: 32 }, maxItems: 3 },
                  },
                },
              },
            },
          },
          ...detailErrors([401, 403, 404, 429, 503]),
        },
      },
      post: {
        operationId: 'sentry-chunk-upload',
        summary: 'Uploads chunks: one multipart part each, named by the SHA-1 of its uncompressed bytes',
        description:
          `Parts \`file_gzip\` (gzip) or \`file\`; at most ${uploadLimits.chunksPerRequest} a request, ${uploadLimits.chunkSize} bytes each ` +
          'unpacked (checked while unpacking). Chunks belong to the organization that uploads them; nothing is stored unless every part is right. ' +
          'Uploads have their own bytes in flight (UPLOAD_MAX_IN_FLIGHT_BYTES), apart from ingestion’s.',
        tags: ['sentry-api'],
        security,
        parameters: [org],
        requestBody: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: {
                type: 'object',
                properties: {
                  file_gzip: {
                    type: 'array',
                    items: { type: 'string', format: 'binary', maxLength: uploadLimits.chunkSize },
                    maxItems: uploadLimits.chunksPerRequest,
                  },
                  file: {
                    type: 'array',
                    items: { type: 'string', format: 'binary', maxLength: uploadLimits.chunkSize },
                    maxItems: uploadLimits.chunksPerRequest,
                  },
                },
              },
            },
          },
        },
        responses: {
          '200': {
            description: 'Stored',
            content: { 'application/json': { schema: { type: 'object', additionalProperties: false } } },
          },
          ...detailErrors([400, 401, 403, 404, 413, 429, 503]),
        },
      },
    },
    '/api/0/organizations/{org}/artifactbundle/assemble/': assembleOperation(
      'sentry-artifact-bundle-assemble',
      'Assembles an artifact bundle from its chunks (asked again until its state is final)',
    ),
    '/api/0/organizations/{org}/releases/{version}/assemble/': assembleOperation(
      'sentry-release-assemble',
      'The same, bound to the release in the path (older sentry-cli 2.x without a project)',
      [
        {
          name: 'version',
          in: 'path',
          required: true,
          description: 'The release, unencoded as sentry-cli sends it (`shop@1.0.0`)',
          schema: { type: 'string', minLength: 1, maxLength: 200 },
        },
      ],
    ),
  };
}
