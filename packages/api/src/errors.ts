// The one error map: contract code -> tRPC code and HTTP status, and the translation of anything thrown into an
// AppError.
import { classifyDatabaseError, RETRY_AFTER_UNAVAILABLE_SECONDS } from '@collector/db';
import { AppError, detailsOf, type ErrorCode, summarize, validationError } from '@collector/domain';
import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { z } from 'zod';

// One row per contract code: its tRPC code and HTTP status, when it happens (for the OpenAPI document), and its one
// message. What varies between two errors of a code goes into `details`; VALIDATION_FAILED alone summarises its
// details in the message, the way the contract's example reads.
export const errorStatus: Record<
  ErrorCode,
  { status: number; trpc: TRPC_ERROR_CODE_KEY; when: string; message: string }
> = {
  INVALID_JSON: {
    status: 400,
    trpc: 'PARSE_ERROR',
    when: 'the body is not parseable JSON',
    message: 'the body is not valid JSON',
  },
  VALIDATION_FAILED: {
    status: 400,
    trpc: 'BAD_REQUEST',
    when: 'body, query or path does not match the schema',
    message: 'the input does not match the schema',
  },
  UNAUTHENTICATED: {
    status: 401,
    trpc: 'UNAUTHORIZED',
    when: 'missing, malformed, unknown, expired or logged-out token',
    message: 'sign in: send Authorization: Bearer <token> with a token that is not expired or logged out',
  },
  INVALID_CREDENTIALS: {
    status: 401,
    trpc: 'UNAUTHORIZED',
    when: 'unknown e-mail or wrong password',
    message: 'wrong e-mail or password',
  },
  UNKNOWN_APP_KEY: {
    status: 403,
    trpc: 'FORBIDDEN',
    when: 'no app has this appKey',
    message: 'no app has this appKey',
  },
  FORBIDDEN: {
    status: 403,
    trpc: 'FORBIDDEN',
    when: 'a member of the organization whose role (or a token whose scopes) may not do this',
    message: 'your role in this organization, or this token’s scopes, do not allow this',
  },
  NOT_FOUND: {
    status: 404,
    trpc: 'NOT_FOUND',
    when: 'unknown route, or an app or issue that is not the caller’s',
    message: 'no such route, app or issue',
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    trpc: 'METHOD_NOT_SUPPORTED',
    when: 'known path, wrong method',
    message: 'this method is not allowed here; the Allow header lists those that are',
  },
  EMAIL_TAKEN: {
    status: 409,
    trpc: 'CONFLICT',
    when: 'the e-mail is already registered',
    message: 'an account with this e-mail exists',
  },
  CONFLICT: {
    status: 409,
    trpc: 'CONFLICT',
    when: 'the request contradicts the current state (the last owner, a slug in use)',
    message: 'this contradicts the current state',
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    trpc: 'PAYLOAD_TOO_LARGE',
    when: 'body over the limit, before or after decompression',
    message: 'the body is over the limit',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    trpc: 'UNSUPPORTED_MEDIA_TYPE',
    when: 'content type or encoding not taken here',
    message: 'this content type, charset or encoding is not taken here',
  },
  RATE_LIMITED: {
    status: 429,
    trpc: 'TOO_MANY_REQUESTS',
    when: 'a rate limit was hit (see Retry-After)',
    message: 'too many requests: retry after the seconds in Retry-After',
  },
  INTERNAL: {
    status: 500,
    trpc: 'INTERNAL_SERVER_ERROR',
    when: 'a bug; the message says nothing more',
    message: 'internal error',
  },
  // Not only the database: ingestion and tRPC POSTs at the limit of bytes in flight answer it too (IngestBudget).
  UNAVAILABLE: {
    status: 503,
    trpc: 'SERVICE_UNAVAILABLE',
    when: 'the database cannot be reached (see Retry-After)',
    message: 'the service is unavailable for now: retry after the seconds in Retry-After',
  },
};

type ErrorOptions = NonNullable<ConstructorParameters<typeof AppError>[2]>;

/** The contract error of a code, with the code's one message. */
export function contractError(code: ErrorCode, options: ErrorOptions = {}): AppError {
  if (code === 'VALIDATION_FAILED' && options.details) return new AppError(code, summarize(options.details), options);
  return new AppError(code, errorStatus[code].message, options);
}

/** Throws the contract error from inside a procedure. */
export function fail(code: ErrorCode, options?: ErrorOptions): never {
  const cause = contractError(code, options);
  throw new TRPCError({ code: errorStatus[code].trpc, message: cause.message, cause });
}

function issuesOf(cause: unknown): readonly z.core.$ZodIssue[] | undefined {
  if (cause instanceof z.ZodError) return cause.issues;
  const issues = (cause as { issues?: unknown } | undefined)?.issues;
  return Array.isArray(issues) ? (issues as z.core.$ZodIssue[]) : undefined;
}

// tRPC's own failures (its transport, a missing procedure) in the contract's codes.
const FROM_TRPC: Partial<Record<TRPC_ERROR_CODE_KEY, ErrorCode>> = {
  PARSE_ERROR: 'INVALID_JSON',
  NOT_FOUND: 'NOT_FOUND',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  METHOD_NOT_SUPPORTED: 'METHOD_NOT_ALLOWED',
};

/** Whatever was thrown, as the error a client may see: internal messages never pass. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof TRPCError) {
    if (error.cause instanceof AppError) return error.cause;
    const issues = issuesOf(error.cause);
    if (error.code === 'BAD_REQUEST' && issues) return validationError(detailsOf(issues));
    // tRPC's own transport reports an unparseable body as BAD_REQUEST caused by a SyntaxError.
    if (error.code === 'BAD_REQUEST' && error.cause instanceof SyntaxError) return contractError('INVALID_JSON');
    const code = FROM_TRPC[error.code];
    if (code) return contractError(code);
    // The rest of tRPC's BAD_REQUESTs are requests it cannot take (a batch, a path that is not URL-encoded): the
    // caller's fault, so a 400, never the INTERNAL (a 500) below. tRPC's own message may quote the request: not passed.
    if (error.code === 'BAD_REQUEST')
      return contractError('VALIDATION_FAILED', {
        details: [{ path: '', message: 'not a call this endpoint takes: one procedure per request, input as JSON' }],
      });
  }
  switch (classifyDatabaseError(error)) {
    case 'input':
      // Whichever field slipped past validation (NUL, invalid Unicode escapes): the input's fault, not a 500.
      return contractError('VALIDATION_FAILED', {
        details: [{ path: '', message: 'a value cannot be stored (NUL, invalid Unicode or out of range)' }],
      });
    case 'unavailable':
      return contractError('UNAVAILABLE', { retryAfterSeconds: RETRY_AFTER_UNAVAILABLE_SECONDS, cause: error });
    default:
      // A deadlock that outlived its retries is a bug to look at too.
      return contractError('INTERNAL', { cause: error });
  }
}

/** Headers that go with an error's status. */
export function errorHeaders(error: AppError): Record<string, string> {
  const headers: Record<string, string> = {};
  if (error.retryAfterSeconds !== undefined) headers['Retry-After'] = String(error.retryAfterSeconds);
  // Every 401, INVALID_CREDENTIALS included: HTTP requires the challenge on a 401 and the OpenAPI document declares it.
  if (errorStatus[error.code].status === 401) headers['WWW-Authenticate'] = 'Bearer';
  return headers;
}

export const ZErrorResponseSchema = z
  .object({
    error: z.object({
      code: z.enum(Object.keys(errorStatus) as [ErrorCode, ...ErrorCode[]]),
      message: z.string(),
      details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    }),
  })
  // No `id` here: it is registered by hand as components.schemas.ErrorResponse (an id would nest it under $defs).
  .meta({ description: 'The body of every non-2xx response.' });
