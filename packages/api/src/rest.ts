// The REST surface as data, derived from the router's meta: the service's route guard, success statuses
// and the OpenAPI document all read this one table.
import type { ErrorCode } from '@collector/domain';
import { forEachOpenApiProcedure, getPathRegExp, normalizePath } from 'trpc-to-openapi';
import { appRouter } from './router';
import type { Meta } from './trpc';

export interface RestRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** OpenAPI form, `/api/issues/{id}`. */
  path: string;
  pattern: RegExp;
  procedurePath: string;
  status: 200 | 201 | 202 | 204;
  errors: ErrorCode[];
  /** Ingestion takes text/plain bodies too (what navigator.sendBeacon sends) and allows any origin. */
  contentTypes: string[];
  /** False for a procedure without input (z.void()): whatever was sent is not passed on. */
  takesInput: boolean;
  /**
   * Query parameters the input schema takes as numbers. A query string is text, so the REST layer turns such a
   * value into a number when (and only when) it is written as a canonical integer; anything else stays text and
   * the schema refuses it (`limit=abc`, `limit=`, `limit=1.5`, `limit=01` are 400, never a default or 0).
   */
  numericQuery: ReadonlySet<string>;
}

type SchemaLike = {
  _zod?: { def?: { type?: string; innerType?: SchemaLike; in?: SchemaLike } };
  shape?: Record<string, SchemaLike>;
};

/** The schema under optional/default/nullable wrappers (and the input side of a pipe). */
function unwrapped(schema: SchemaLike | undefined): SchemaLike | undefined {
  const def = schema?._zod?.def;
  if (def?.innerType) return unwrapped(def.innerType);
  if (def?.type === 'pipe' && def.in) return unwrapped(def.in);
  return schema;
}

function numericKeys(input: SchemaLike | undefined): Set<string> {
  const shape = unwrapped(input)?.shape ?? {};
  return new Set(Object.keys(shape).filter((key) => unwrapped(shape[key])?._zod?.def?.type === 'number'));
}

/** What any POST or PATCH body can get wrong, and what any path answers to another method. */
const BODY_ERRORS: ErrorCode[] = ['INVALID_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];

export const restRoutes: RestRoute[] = [];
forEachOpenApiProcedure(appRouter._def.procedures, ({ path: procedurePath, procedure, meta }) => {
  const { openapi, contract } = meta as Meta & { openapi: NonNullable<Meta['openapi']> };
  if (openapi.method === 'PUT') throw new Error(`${procedurePath}: only GET, POST, PATCH and DELETE are routed`);
  const path = normalizePath(openapi.path);
  const [input] = (procedure as unknown as { _def: { inputs: unknown[] } })._def.inputs;
  restRoutes.push({
    method: openapi.method,
    path,
    pattern: getPathRegExp(path),
    procedurePath,
    status: contract?.status ?? 200,
    errors: [
      ...new Set([
        ...(contract?.errors ?? []),
        // Whatever takes a token may meet one whose role or scopes fall short (auth/authorize.ts).
        ...(contract?.errors.includes('UNAUTHENTICATED') ? (['FORBIDDEN'] as const) : []),
        ...(openapi.method !== 'GET' ? BODY_ERRORS : []),
        'METHOD_NOT_ALLOWED' as const,
      ]),
    ],
    contentTypes: openapi.contentTypes ?? ['application/json'],
    takesInput: (input as SchemaLike | undefined)?._zod?.def?.type !== 'void',
    numericQuery: numericKeys(input as SchemaLike | undefined),
  });
});

/** Routes whose path matches, whatever their method: none means 404, none with the method means 405. */
export function routesForPath(pathname: string): RestRoute[] {
  const path = normalizePath(pathname);
  return restRoutes.filter((route) => route.pattern.test(path));
}

/** The route's path parameters in a path it matches, as sent (still percent-encoded; the schemas decode). */
export function pathParameters(route: RestRoute, pathname: string): Record<string, string> | undefined {
  return route.pattern.exec(normalizePath(pathname))?.groups;
}

/** A query value as the route's input schema takes it: see RestRoute.numericQuery. */
export function queryValue(route: RestRoute, key: string, text: string): string | number {
  if (!route.numericQuery.has(key)) return text;
  const number = Number(text);
  return Number.isSafeInteger(number) && String(number) === text ? number : text;
}
