// The typed client for dashboards and SDKs: every procedure of the router, typed from it, over /trpc.
// Only the router's *type* is imported, so nothing of the server ships with the client; it runs in Node and browsers.
import type { AppRouter } from '@collector/api';
import { createTRPCClient, httpLink, type TRPCLink } from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import { observable } from '@trpc/server/observable';
import { toCollectorError } from './errors';

export { TRPCClientError } from '@trpc/client';
export {
  CollectorError,
  type CollectorErrorCode,
  type ContractErrorCode,
  type ErrorDetail,
  errorCodeOf,
  isCollectorError,
  toCollectorError,
} from './errors';
export type { AppRouter };

/** Inputs and outputs of every procedure, e.g. `CollectorOutputs['issues']['list']['issues'][number]` is an issue. */
export type CollectorInputs = inferRouterInputs<AppRouter>;
export type CollectorOutputs = inferRouterOutputs<AppRouter>;

export interface CollectorClientOptions {
  /** Where the collector is served, e.g. http://localhost:3100. */
  baseUrl: string;
  /** A session token, or a function read at each call (so a dashboard can sign in and out). */
  token?: string | (() => string | undefined);
  fetch?: typeof globalThis.fetch;
}

/** Turns every failure into a CollectorError before tRPC's client sees it (it passes TRPCClientErrors through as they are). */
const contractErrorLink: TRPCLink<AppRouter> =
  () =>
  ({ op, next }) =>
    observable((observer) =>
      next(op).subscribe({
        next: (value) => observer.next(value),
        error: (error) => observer.error(toCollectorError(error)),
        complete: () => observer.complete(),
      }),
    );

/**
 * A client over the collector's tRPC endpoint: `client.issues.list.query({ appKey, limit: 20 })`.
 * Query inputs carry numbers as digit strings, exactly as the REST query strings do, because the same strict
 * schemas serve both; mutations take JSON numbers. Every failed call rejects with a CollectorError.
 */
export function createCollectorClient(options: CollectorClientOptions) {
  const tokenOf = typeof options.token === 'function' ? options.token : () => options.token as string | undefined;
  return createTRPCClient<AppRouter>({
    links: [
      contractErrorLink,
      httpLink({
        url: `${options.baseUrl.replace(/\/+$/, '')}/trpc`,
        headers: () => {
          const token = tokenOf();
          return token ? { authorization: `Bearer ${token}` } : {};
        },
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
    ],
  });
}

export type CollectorClient = ReturnType<typeof createCollectorClient>;
