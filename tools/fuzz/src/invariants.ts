// What every answer must satisfy, whatever was sent: checked against the contract and the served OpenAPI document,
// not against the implementation, so the oracle cannot share the service's mistakes.
import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { pollutablePrototypes } from './prototypes.mjs';
import type { RawReply, RawRequest } from './transport';

/**
 * The contract's error table (shared/CONTRACT.md), copied on purpose: a test oracle that imported the service's
 * own map would agree with any mistake in it.
 */
export const contractErrors: Readonly<Record<string, number>> = {
  INVALID_JSON: 400,
  VALIDATION_FAILED: 400,
  UNAUTHENTICATED: 401,
  INVALID_CREDENTIALS: 401,
  UNKNOWN_APP_KEY: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  EMAIL_TAKEN: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
};

interface OpenApiOperation {
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
}

interface DocumentedPath {
  template: string;
  pattern: RegExp;
  operations: Record<string, OpenApiOperation>;
}

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** Checks replies; build it once from the document the server serves. */
export class ReplyChecker {
  private readonly paths: DocumentedPath[];
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly ajv: Ajv2020;

  constructor(document: unknown) {
    const openapi = document as OpenApiDocument;
    // The document is not itself a JSON Schema (paths, operations): load it whole so every $ref resolves, and
    // compile only the response schemas, on first use. Formats are annotations here, as in OpenAPI 3.1.
    this.ajv = new Ajv2020({ strict: false, validateSchema: false, validateFormats: false, allErrors: true });
    this.ajv.addSchema(openapi as object, 'openapi.json');
    this.paths = Object.entries(openapi.paths).map(([template, operations]) => ({
      template,
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`, 'i'),
      operations,
    }));
  }

  /** The documented path a request path belongs to, the way the service (Express) routes it: case-insensitive, trailing slashes ignored. */
  private documentedPath(requestPath: string): DocumentedPath | undefined {
    const pathname = requestPath.split('?', 1)[0] ?? '';
    const normalized = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
    return this.paths.find((path) => path.pattern.test(normalized));
  }

  private validator(template: string, method: string, status: string): ValidateFunction | undefined {
    const key = `${method} ${template} ${status}`;
    let validate = this.validators.get(key);
    if (!validate) {
      const operation = this.paths.find((path) => path.template === template)?.operations[method];
      if (!operation?.responses[status]?.content?.['application/json']?.schema) return undefined;
      const pointer = ['paths', template, method, 'responses', status, 'content', 'application/json', 'schema']
        .map(escapePointer)
        .join('/');
      validate = this.ajv.compile({ $ref: `openapi.json#/${pointer}` });
      this.validators.set(key, validate);
    }
    return validate;
  }

  /** Every way the reply breaks the contract; empty when it keeps it. */
  check(request: RawRequest, reply: RawReply): string[] {
    const problems: string[] = [];
    const { status } = reply;
    if (status >= 500) problems.push(`5xx: ${status}`);
    if (status < 200 || status > 599) problems.push(`unexpected status ${status}`);

    const method = request.method.toUpperCase();
    if (reply.body.includes('root:x:0:0')) problems.push('a file outside the served folders came back (/etc/passwd)');
    if (/^\/trpc(\/|\?|$)/i.test(request.path)) return [...problems, ...trpcProblems(method, reply)];
    const path = this.documentedPath(request.path);
    // Outside the API and the probes the dashboard's files and page are served: not JSON, not in the document.
    if (!path && !/^\/api(\/|\?|$)/i.test(request.path)) return problems;
    const operation = path?.operations[method.toLowerCase()];
    // HEAD answers carry no body by definition; what matters is that it is not a 5xx.
    if (method === 'HEAD') return problems;
    // The ingestion path answers CORS preflights itself (204, no body); other OPTIONS are 405 like any method.
    if (method === 'OPTIONS' && path?.template === '/api/events/batch' && status === 204) return problems;

    if (status >= 200 && status < 300) {
      if (!path || !operation)
        return [...problems, `${status} for ${method} ${request.path}, which the document does not have`];
      if (!operation.responses[String(status)])
        problems.push(`status ${status} is not documented for ${method} ${path.template}`);
      if (status === 204) {
        if (reply.body.length > 0) problems.push('204 with a body');
        return problems;
      }
      const parsed = parseJson(reply, problems);
      if (parsed === NOT_JSON) return problems;
      const validate = this.validator(path.template, method.toLowerCase(), String(status));
      if (!validate) return [...problems, `no documented schema for ${status} of ${method} ${path.template}`];
      if (!validate(parsed)) {
        problems.push(
          `body does not match the documented ${status} shape: ${this.ajv.errorsText(validate.errors, { separator: '; ' }).slice(0, 500)}`,
        );
      }
      return problems;
    }

    const parsed = parseJson(reply, problems);
    if (parsed === NOT_JSON) return problems;
    problems.push(...errorBodyProblems(parsed, status));
    const code = (parsed as { error?: { code?: string } } | undefined)?.error?.code;
    if (status === 401 && code === 'UNAUTHENTICATED' && reply.headers['www-authenticate'] !== 'Bearer')
      problems.push('401 UNAUTHENTICATED without WWW-Authenticate: Bearer');
    if ((status === 429 || status === 503) && !/^[1-9]\d*$/.test(String(reply.headers['retry-after'] ?? ''))) {
      problems.push(`${status} without an integer Retry-After >= 1 (got ${reply.headers['retry-after']})`);
    }
    if (status === 405 && !reply.headers.allow) problems.push('405 without Allow');

    // Where the request landed decides which errors it may get.
    if (!path) {
      // Requests the HTTP parser refuses (oversize URL: 413, bad bytes: 400) never reach routing.
      if (![400, 404, 413].includes(status)) problems.push(`${status} for an unknown path (expected 404)`);
    } else if (!operation) {
      if (![400, 405, 413].includes(status))
        problems.push(`${status} for ${method} on ${path.template}, which has no such method (expected 405)`);
    } else if (!operation.responses[String(status)] && status !== 413) {
      // 413 may come from the HTTP parser (oversize headers) before any route is chosen.
      problems.push(`status ${status} (${code}) is not documented for ${method} ${path.template}`);
    }
    return problems;
  }
}

const NOT_JSON = Symbol('not JSON');

/**
 * `/trpc` speaks the tRPC protocol for the typed client (README): its errors are tRPC's envelope with the contract's
 * body in `error.data.appError`. Its content type is not checked: tRPC answers methods it does not know (DELETE,
 * OPTIONS) with a JSON body labelled text/plain, which the REST contract does not cover.
 */
function trpcProblems(method: string, reply: RawReply): string[] {
  if (method === 'HEAD' || reply.status < 300) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(reply.body.toString('utf8'));
  } catch {
    return [`tRPC answer is not JSON: ${JSON.stringify(reply.body.subarray(0, 200).toString('utf8'))}`];
  }
  const appError = (parsed as { error?: { data?: { appError?: unknown } } } | undefined)?.error?.data?.appError;
  // A method other than GET or POST is refused before tRPC (405), with the contract's own body.
  if (appError === undefined && reply.status === 405) return errorBodyProblems(parsed, reply.status);
  return errorBodyProblems({ error: appError }, reply.status).map((problem) => `tRPC appError: ${problem}`);
}

function parseJson(reply: RawReply, problems: string[]): unknown {
  const type = String(reply.headers['content-type'] ?? '');
  if (!/^application\/json(;|$)/.test(type))
    problems.push(`content-type is ${JSON.stringify(type)}, not application/json`);
  try {
    return JSON.parse(reply.body.toString('utf8'));
  } catch {
    problems.push(`body is not JSON: ${JSON.stringify(reply.body.subarray(0, 200).toString('utf8'))}`);
    return NOT_JSON;
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The contract's error body, exactly: `{ error: { code, message, details? } }` and nothing a client would have to parse besides. */
export function errorBodyProblems(body: unknown, status: number): string[] {
  const problems: string[] = [];
  if (!isPlainObject(body)) return [`error body is not an object: ${JSON.stringify(body)?.slice(0, 200)}`];
  const keys = Object.keys(body);
  if (keys.length !== 1 || keys[0] !== 'error')
    problems.push(`error body has keys ${JSON.stringify(keys)}, expected ["error"]`);
  const error = body.error;
  if (!isPlainObject(error)) return [...problems, 'error is not an object'];
  const extra = Object.keys(error).filter((key) => !['code', 'message', 'details'].includes(key));
  if (extra.length) problems.push(`error has extra keys ${JSON.stringify(extra)}`);
  if (typeof error.code !== 'string' || !(error.code in contractErrors))
    problems.push(`error.code ${JSON.stringify(error.code)} is not in the contract's table`);
  else if (contractErrors[error.code] !== status)
    problems.push(`error.code ${error.code} comes with ${contractErrors[error.code]}, not ${status}`);
  if (typeof error.message !== 'string' || error.message.length === 0)
    problems.push('error.message is not a non-empty string');
  else if (/\n\s+at |node_modules|\bselect\b.+\bfrom\b|\binsert into\b/i.test(error.message))
    problems.push(`error.message leaks internals: ${error.message.slice(0, 200)}`);
  if (error.details !== undefined) {
    if (!Array.isArray(error.details)) problems.push('error.details is not an array');
    else
      for (const detail of error.details) {
        if (
          !isPlainObject(detail) ||
          typeof detail.path !== 'string' ||
          typeof detail.message !== 'string' ||
          Object.keys(detail).length !== 2
        ) {
          problems.push(
            `error.details has an item that is not { path, message }: ${JSON.stringify(detail)?.slice(0, 200)}`,
          );
          break;
        }
      }
  }
  return problems;
}

/** Own property names of the prototypes an attacker would pollute, to compare before and after. */
export function prototypeFingerprint(): string {
  return JSON.stringify(
    Object.entries(pollutablePrototypes).map(([name, prototype]) => [
      name,
      Object.getOwnPropertyNames(prototype).sort(),
    ]),
  );
}
