// The REST surface as data, derived from the router's meta: the service's route guard, success statuses
// and the OpenAPI document all read this one table.
import type { ErrorCode } from '@collector/domain';
import { forEachOpenApiProcedure, getPathRegExp, normalizePath } from 'trpc-to-openapi';
import { appRouter } from './router';
import type { Meta } from './trpc';

export interface RestRoute {
  method: 'GET' | 'POST' | 'DELETE';
  /** OpenAPI form, `/api/issues/{id}`. */
  path: string;
  pattern: RegExp;
  procedurePath: string;
  status: 200 | 201 | 204;
  errors: ErrorCode[];
  /** Ingestion takes text/plain bodies too (what navigator.sendBeacon sends) and allows any origin. */
  contentTypes: string[];
}

/** What any POST body can get wrong, and what any path answers to another method. */
const BODY_ERRORS: ErrorCode[] = ['INVALID_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];

export const restRoutes: RestRoute[] = [];
forEachOpenApiProcedure(appRouter._def.procedures, ({ path: procedurePath, meta }) => {
  const { openapi, contract } = meta as Meta & { openapi: NonNullable<Meta['openapi']> };
  if (openapi.method !== 'GET' && openapi.method !== 'POST' && openapi.method !== 'DELETE') throw new Error(`${procedurePath}: only GET, POST and DELETE are routed`);
  const path = normalizePath(openapi.path);
  restRoutes.push({
    method: openapi.method,
    path,
    pattern: getPathRegExp(path),
    procedurePath,
    status: contract?.status ?? 200,
    errors: [...new Set([...(contract?.errors ?? []), ...(openapi.method === 'POST' ? BODY_ERRORS : []), 'METHOD_NOT_ALLOWED' as const])],
    contentTypes: openapi.contentTypes ?? ['application/json'],
  });
});

/** Routes whose path matches, whatever their method: none means 404, none with the method means 405. */
export function routesForPath(pathname: string): RestRoute[] {
  const path = normalizePath(pathname);
  return restRoutes.filter((route) => route.pattern.test(path));
}

export function successStatus(procedurePath: string): number {
  return restRoutes.find((route) => route.procedurePath === procedurePath)?.status ?? 200;
}
