// The one error a client call rejects with: the contract's error code, the HTTP status, details and Retry-After.
import type { AppRouter } from '@collector/api';
import { parseRetryAfter } from '@collector/domain/retry-after';
import { TRPCClientError } from '@trpc/client';
import type { inferRouterError } from '@trpc/server';

/** What the server puts in every tRPC error (see the router's errorFormatter), typed from the router itself. */
type ServerErrorData = inferRouterError<AppRouter>['data'];

/** The contract's error codes (`VALIDATION_FAILED`, `UNAUTHENTICATED`, ...), as the router declares them. */
export type ContractErrorCode = ServerErrorData['appError']['code'];

export type ErrorDetail = NonNullable<ServerErrorData['appError']['details']>[number];

/**
 * `NETWORK_ERROR` is not a contract code: the call got no answer from the collector at all (connection refused,
 * DNS, CORS, an abort, or a proxy's non-JSON error page). Everything else is what the server said.
 */
export type CollectorErrorCode = ContractErrorCode | 'NETWORK_ERROR';

/**
 * Extends TRPCClientError so code written against plain tRPC (`instanceof TRPCClientError`, `error.data`) keeps
 * working; tRPC's client passes an error that already is a TRPCClientError through unchanged.
 */
export class CollectorError extends TRPCClientError<AppRouter> {
  /** The contract's code, or NETWORK_ERROR when nothing answered. */
  readonly code: CollectorErrorCode;
  /** HTTP status of the answer; 0 when there was none. */
  readonly status: number;
  /** For VALIDATION_FAILED: each problem with the path of the offending field. */
  readonly details: ErrorDetail[];
  /** Seconds to wait before retrying (429, 503), when the server sent Retry-After. */
  readonly retryAfterSeconds: number | undefined;

  constructor(from: TRPCClientError<AppRouter>) {
    super(from.message, {
      cause: from.cause,
      meta: from.meta,
      ...(from.shape ? { result: { error: from.shape } } : {}),
    });
    // TRPCClientError's constructor pins the prototype to itself; put ours back so instanceof CollectorError holds.
    Object.setPrototypeOf(this, CollectorError.prototype);
    this.name = 'CollectorError';
    const response = (
      from.meta as { response?: { status?: unknown; headers?: { get(name: string): string | null } } } | undefined
    )?.response;
    const appError = from.data?.appError;
    this.code = appError?.code ?? 'NETWORK_ERROR';
    this.status = typeof response?.status === 'number' ? response.status : (from.data?.httpStatus ?? 0);
    this.details = appError?.details ?? [];
    this.retryAfterSeconds = parseRetryAfter(response?.headers?.get('retry-after'));
  }
}

/** Whatever a call failed with, as a CollectorError. */
export function toCollectorError(error: unknown): CollectorError {
  if (error instanceof CollectorError) return error;
  return new CollectorError(TRPCClientError.from<AppRouter>(error as Error));
}

export function isCollectorError(error: unknown): error is CollectorError {
  return error instanceof CollectorError;
}

/**
 * The contract's error code carried by a failed call (`UNAUTHENTICATED`, `NOT_FOUND`, ...), or undefined when the
 * server never answered (or `error` is not from this client). Kept for callers that only need the code.
 */
export function errorCodeOf(error: unknown): ContractErrorCode | undefined {
  if (error instanceof CollectorError) return error.code === 'NETWORK_ERROR' ? undefined : error.code;
  if (!(error instanceof TRPCClientError)) return undefined;
  const code = (error.data as { appError?: { code?: unknown } } | undefined)?.appError?.code;
  return typeof code === 'string' ? (code as ContractErrorCode) : undefined;
}
