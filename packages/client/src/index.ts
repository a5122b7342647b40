// The typed client for dashboards and SDKs: every procedure of the router, typed from it, over /trpc.
// Only the router's *type* is imported, so nothing of the server ships with the client.
import type { AppRouter } from '@collector/api';
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';

export type { AppRouter };

export interface CollectorClientOptions {
  /** Where the collector is served, e.g. http://localhost:3100. */
  baseUrl: string;
  /** A session token, or a function read at each call (so a dashboard can sign in and out). */
  token?: string | (() => string | undefined);
  fetch?: typeof globalThis.fetch;
}

export function createCollectorClient(options: CollectorClientOptions) {
  const tokenOf = typeof options.token === 'function' ? options.token : () => options.token as string | undefined;
  return createTRPCClient<AppRouter>({
    links: [
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

/** The contract's error code carried by a failed call (`UNAUTHENTICATED`, `NOT_FOUND`, ...), if the server sent one. */
export function errorCodeOf(error: unknown): string | undefined {
  if (!(error instanceof TRPCClientError)) return undefined;
  const data = error.data as { appError?: { code?: unknown } } | undefined;
  return typeof data?.appError?.code === 'string' ? data.appError.code : undefined;
}

export { TRPCClientError };
