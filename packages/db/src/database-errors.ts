// The one reading of a database error: whose fault it is and what may be done about it. The event writer decides on
// it whether to retry, split or give up; the api maps it once onto the contract's codes.

/**
 * - `unavailable`: the database cannot be reached now (down, restarting, frozen, out of connections); retry later.
 * - `input`: the statement's data broke a rule of the database (SQLSTATE class 22, data exception: NUL or invalid
 *   Unicode in text, a number out of range; class 23, integrity: a constraint). Sending it again fails again.
 * - `retryable`: two transactions collided (deadlock 40P01, serialization 40001); the same statement may succeed.
 * - `other`: anything else, a bug.
 */
export type DatabaseErrorKind = 'unavailable' | 'input' | 'retryable' | 'other';

// Errors of pg and of the PostgreSQL server that mean "the database is not reachable now", not "this statement is
// wrong".
const UNAVAILABLE_SYSTEM_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
// 08: connection; 57P: shutdown, terminated, starting up; 53: resources; 57014: statement_timeout fired.
const UNAVAILABLE_SQLSTATE_PREFIXES = ['08', '57P', '53', '57014'];
const UNAVAILABLE_MESSAGES = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /connection.*(closed|ended)/i,
  /Client has encountered a connection error/i,
  /Query read timeout/i,
  /Client was closed and is not queryable/i,
  // The handle was closed under a request (shutdown): Kysely says so in these words.
  /driver has already been destroyed/i,
];
const INPUT_SQLSTATE_CLASSES = ['22', '23'];
const RETRYABLE_SQLSTATES = new Set(['40P01', '40001']);

function kindOfCode(code: string): DatabaseErrorKind | undefined {
  if (UNAVAILABLE_SYSTEM_CODES.has(code) || UNAVAILABLE_SQLSTATE_PREFIXES.some((prefix) => code.startsWith(prefix)))
    return 'unavailable';
  if (RETRYABLE_SQLSTATES.has(code)) return 'retryable';
  // SQLSTATEs are five characters; a shorter code (a Node system error) is not a data exception.
  if (code.length === 5 && INPUT_SQLSTATE_CLASSES.includes(code.slice(0, 2))) return 'input';
  return undefined;
}

/** What an error says about the database, looking through up to five wrapping causes (tRPC, Kysely, pg). */
export function classifyDatabaseError(error: unknown): DatabaseErrorKind {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    const code = (cause as { code?: unknown }).code;
    const kind = typeof code === 'string' ? kindOfCode(code) : undefined;
    if (kind) return kind;
    if (UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(cause.message))) return 'unavailable';
  }
  return 'other';
}

/** Seconds a client is told to wait (Retry-After) when the database is unavailable. */
export const RETRY_AFTER_UNAVAILABLE_SECONDS = 2;
