// The OpenAPI 3.1 document: generated from the router by trpc-to-openapi, then given the contract's
// success statuses and error responses from the same route table the server uses.
import { type ErrorCode, eventSchema } from '@collector/domain';
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { z } from 'zod';
import { errorStatus, ZErrorResponseSchema } from './errors';
import { pathsServedOutsideTheRouter } from './openapi-sentry';
import { restRoutes } from './rest';
import { appRouter } from './router';

type Operation = { responses: Record<string, unknown>; requestBody?: { content: Record<string, { schema: unknown }> } };

// Not `Error`: a schema of that name shadows the global Error in generated clients.
const ERROR_REF = { $ref: '#/components/schemas/ErrorResponse' };
// The project has no LICENSE file yet; MIT is stated here as the intended licence (the lead confirms or changes it).
const LICENSE = { name: 'MIT', identifier: 'MIT' };
// Operations anyone may call: no Authorization. Declared as `security: []` so a reader (and Redocly) can tell them
// from operations that forgot to say.
const PUBLIC: { security: [] } = { security: [] };
const EVERY_ROUTE: ErrorCode[] = ['INTERNAL', 'UNAVAILABLE'];

/** What a 503 also means on the ingestion endpoints: they refuse a request when the process holds its limit of bodies. */
const INGESTION_UNAVAILABLE =
  'the database cannot be reached, or ingestion holds its limit of bytes in flight (INGEST_MAX_IN_FLIGHT_BYTES); see Retry-After';

/** The error responses of an operation; `ingestion` for the endpoints that take events (their 503 has two causes). */
function errorResponses(codes: ErrorCode[], { ingestion = false } = {}): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...codes, ...EVERY_ROUTE]) {
    const { status } = errorStatus[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, statusCodes]) => {
        const headers: Record<string, unknown> = {};
        if (status === 429 || status === 503)
          headers['Retry-After'] = {
            description: 'Seconds to wait, an integer >= 1',
            schema: { type: 'integer', minimum: 1 },
          };
        if (status === 401) headers['WWW-Authenticate'] = { description: 'Bearer', schema: { type: 'string' } };
        if (status === 405) headers.Allow = { description: 'The methods this path takes', schema: { type: 'string' } };
        const description = statusCodes
          .map(
            (code) =>
              `${code}: ${ingestion && code === 'UNAVAILABLE' ? INGESTION_UNAVAILABLE : errorStatus[code].when}`,
          )
          .join('; ');
        return [
          String(status),
          {
            description,
            ...(Object.keys(headers).length ? { headers } : {}),
            content: { 'application/json': { schema: ERROR_REF } },
          },
        ];
      }),
  );
}

// The paths outside the route table answer another method with 405 too (services/collector/src/app.ts).
const METHOD_NOT_ALLOWED = {
  '405': {
    description: `METHOD_NOT_ALLOWED: ${errorStatus.METHOD_NOT_ALLOWED.when}`,
    headers: { Allow: { description: 'GET', schema: { type: 'string' } } },
    content: { 'application/json': { schema: ERROR_REF } },
  },
};

const probe = (description: string, body: object, unavailable: boolean) => ({
  get: {
    operationId: description.split(':')[0],
    summary: description,
    tags: ['operations'],
    ...PUBLIC,
    responses: {
      '200': { description: 'OK', content: { 'application/json': { schema: body } } },
      ...METHOD_NOT_ALLOWED,
      ...(unavailable
        ? {
            '503': {
              description: 'UNAVAILABLE: the database cannot be reached',
              headers: {
                'Retry-After': {
                  description: 'Seconds to wait, an integer >= 1',
                  schema: { type: 'integer', minimum: 1 },
                },
              },
              content: { 'application/json': { schema: ERROR_REF } },
            },
          }
        : {}),
    },
  },
});

export function createOpenApiDocument(options: { baseUrl: string; version: string }): OpenAPIObject {
  const document = generateOpenApiDocument(appRouter, {
    title: 'collector',
    description:
      'Collects client-side errors and failed requests from SDKs, groups them into issues and answers dashboard queries. ' +
      'Every non-2xx answer has the ErrorResponse body. Every answer carries X-Request-Id (the one sent, if it is 1 to 128 of [A-Za-z0-9._:/+=-], else a new one). Unknown paths answer 404, a known path with another method 405 (with Allow).',
    version: options.version,
    baseUrl: options.baseUrl,
    securitySchemes: {
      bearer: {
        type: 'http',
        scheme: 'bearer',
        description: 'A session: the token from register or login (`session_...`)',
      },
      apiToken: {
        type: 'http',
        scheme: 'bearer',
        description:
          'An API token from POST /api/tokens, narrowed to its scopes: a user token (`sntryu_` + 64 hex) or an org token ' +
          '(`sntrys_...`, Sentry’s format); accepted wherever a session is',
      },
    },
  });
  document.info.license = LICENSE;
  const paths = document.paths as Record<string, Record<string, Operation>>;
  for (const route of restRoutes) {
    const operation = paths[route.path]?.[route.method.toLowerCase()];
    if (!operation) throw new Error(`no OpenAPI operation for ${route.method} ${route.path}`);
    const success = operation.responses['200'] as object;
    const security = (operation as { security?: unknown[] }).security;
    if (!security) Object.assign(operation, PUBLIC);
    // Wherever a session is taken, an API token is too (auth/principal.ts).
    else if (security.length > 0) Object.assign(operation, { security: [{ bearer: [] }, { apiToken: [] }] });
    operation.responses = {
      [route.status]: route.status === 204 ? { description: 'Done, no body' } : success,
      ...errorResponses(route.errors, { ingestion: route.procedurePath === 'events.ingest' }),
    };
    if (route.procedurePath === 'events.ingest' && operation.requestBody) {
      for (const media of Object.values(operation.requestBody.content)) {
        const schema = media.schema as { properties?: { events?: { items?: unknown } } };
        if (schema.properties?.events) schema.properties.events.items = { $ref: '#/components/schemas/EventInput' };
      }
    }
  }
  Object.assign(paths, pathsServedOutsideTheRouter(errorResponses));
  paths['/healthz'] = probe(
    'healthz: the process is up',
    { type: 'object', properties: { status: { type: 'string', const: 'ok' } }, required: ['status'] },
    false,
  );
  paths['/readyz'] = probe(
    'readyz: the database answers',
    {
      type: 'object',
      properties: {
        status: { type: 'string', const: 'ready' },
        database: {
          type: 'string',
          enum: ['postgres', 'embedded', 'pglite'],
          description:
            "postgres when DATABASE_URL is set; else embedded (the collector's own PostgreSQL server), or pglite with EMBEDDED=pglite",
        },
      },
      required: ['status', 'database'],
    },
    true,
  );
  paths['/api/openapi.json'] = {
    get: {
      operationId: 'openapi',
      summary: 'This document',
      tags: ['operations'],
      ...PUBLIC,
      responses: {
        '200': { description: 'OpenAPI 3.1', content: { 'application/json': { schema: { type: 'object' } } } },
        ...METHOD_NOT_ALLOWED,
      },
    },
  } as unknown as Record<string, Operation>;

  const { $schema: _ignored, ...eventInput } = z.toJSONSchema(eventSchema, {
    io: 'input',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  const { $schema: _ignored2, ...errorBody } = z.toJSONSchema(ZErrorResponseSchema) as Record<string, unknown>;
  // trpc-to-openapi's own error schemas ("error.BAD_REQUEST", ...) were replaced by ErrorResponse above.
  const schemas = Object.fromEntries(
    Object.entries(document.components?.schemas ?? {}).filter(([name]) => !name.startsWith('error.')),
  );
  document.components = {
    ...document.components,
    schemas: {
      ...schemas,
      ErrorResponse: errorBody,
      EventInput: { ...eventInput, description: 'An event as an SDK sends it' },
    },
  };
  return document;
}
