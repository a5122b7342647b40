// The one error map: contract code -> tRPC code and HTTP status, and the translation of anything thrown into an AppError.
import { isDatabaseUnavailable } from '@collector/db';
import { AppError, type ErrorCode, validationError, detailsOf } from '@collector/domain';
import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { z } from 'zod';

export const errorStatus: Record<ErrorCode, { status: number; trpc: TRPC_ERROR_CODE_KEY; when: string }> = {
  INVALID_JSON: { status: 400, trpc: 'PARSE_ERROR', when: 'the body is not parseable JSON' },
  VALIDATION_FAILED: { status: 400, trpc: 'BAD_REQUEST', when: 'body, query or path does not match the schema' },
  UNAUTHENTICATED: { status: 401, trpc: 'UNAUTHORIZED', when: 'missing, malformed, unknown, expired or logged-out token' },
  INVALID_CREDENTIALS: { status: 401, trpc: 'UNAUTHORIZED', when: 'unknown e-mail or wrong password' },
  UNKNOWN_APP_KEY: { status: 403, trpc: 'FORBIDDEN', when: 'no app has this appKey' },
  NOT_FOUND: { status: 404, trpc: 'NOT_FOUND', when: 'unknown route, or an app or issue that is not the caller’s' },
  METHOD_NOT_ALLOWED: { status: 405, trpc: 'METHOD_NOT_SUPPORTED', when: 'known path, wrong method' },
  EMAIL_TAKEN: { status: 409, trpc: 'CONFLICT', when: 'the e-mail is already registered' },
  PAYLOAD_TOO_LARGE: { status: 413, trpc: 'PAYLOAD_TOO_LARGE', when: 'body over the limit, before or after decompression' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, trpc: 'UNSUPPORTED_MEDIA_TYPE', when: 'content type or encoding not taken here' },
  RATE_LIMITED: { status: 429, trpc: 'TOO_MANY_REQUESTS', when: 'a rate limit was hit (see Retry-After)' },
  INTERNAL: { status: 500, trpc: 'INTERNAL_SERVER_ERROR', when: 'a bug; the message says nothing more' },
  UNAVAILABLE: { status: 503, trpc: 'SERVICE_UNAVAILABLE', when: 'the database cannot be reached (see Retry-After)' },
};

/** Throws the contract error from inside a procedure. */
export function fail(code: ErrorCode, message: string, options?: ConstructorParameters<typeof AppError>[2]): never {
  const cause = new AppError(code, message, options);
  throw new TRPCError({ code: errorStatus[code].trpc, message, cause });
}

// Text the database cannot store (NUL, invalid Unicode escapes): the input's fault, whichever field slipped past validation.
const UNSTORABLE_SQLSTATES = new Set(['22021', '22P05']);

export const RETRY_AFTER_UNAVAILABLE_SECONDS = 2;

function issuesOf(cause: unknown): readonly z.core.$ZodIssue[] | undefined {
  if (cause instanceof z.ZodError) return cause.issues;
  const issues = (cause as { issues?: unknown } | undefined)?.issues;
  return Array.isArray(issues) ? (issues as z.core.$ZodIssue[]) : undefined;
}

/** Whatever was thrown, as the error a client may see: internal messages never pass. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof TRPCError) {
    if (error.cause instanceof AppError) return error.cause;
    const issues = issuesOf(error.cause);
    if (error.code === 'BAD_REQUEST' && issues) return validationError(detailsOf(issues));
    // tRPC's own transport reports an unparseable body as BAD_REQUEST caused by a SyntaxError.
    if (error.code === 'BAD_REQUEST' && error.cause instanceof SyntaxError) return new AppError('INVALID_JSON', 'the body is not valid JSON');
    switch (error.code) {
      case 'PARSE_ERROR':
        return new AppError('INVALID_JSON', 'the body is not valid JSON');
      case 'NOT_FOUND':
        return new AppError('NOT_FOUND', 'not found');
      case 'PAYLOAD_TOO_LARGE':
        return new AppError('PAYLOAD_TOO_LARGE', 'the body is too large');
      case 'UNSUPPORTED_MEDIA_TYPE':
        return new AppError('UNSUPPORTED_MEDIA_TYPE', 'this content type is not accepted here');
      case 'METHOD_NOT_SUPPORTED':
        return new AppError('METHOD_NOT_ALLOWED', 'this method is not allowed here');
    }
  }
  const sqlState = ((error instanceof TRPCError ? error.cause : error) as { code?: unknown } | undefined)?.code;
  if (typeof sqlState === 'string' && UNSTORABLE_SQLSTATES.has(sqlState)) {
    return new AppError('VALIDATION_FAILED', 'a value contains a character that cannot be stored (NUL or invalid Unicode)');
  }
  if (isDatabaseUnavailable(error)) {
    return new AppError('UNAVAILABLE', 'the database is unavailable, retry later', { retryAfterSeconds: RETRY_AFTER_UNAVAILABLE_SECONDS, cause: error });
  }
  return new AppError('INTERNAL', 'internal error', { cause: error });
}

/** Headers that go with an error's status. */
export function errorHeaders(error: AppError): Record<string, string> {
  const headers: Record<string, string> = {};
  if (error.retryAfterSeconds !== undefined) headers['Retry-After'] = String(error.retryAfterSeconds);
  if (error.code === 'UNAUTHENTICATED') headers['WWW-Authenticate'] = 'Bearer';
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
  // No `id` here: it is registered by hand as components.schemas.Error (an id would nest it under $defs).
  .meta({ description: 'The body of every non-2xx response.' });
