// What tRPC's `.output(schema)` does at run time, decided in one place. tRPC parses every answer with its schema: the
// issue page's 50 events through the event schema were a fifth of the collector's time for that page
// (docs/performance.md). The schemas stay what the OpenAPI document and the typed client are made from; at run time an
// answer is either trusted (`off`, the service's default) or checked strictly (`strict`, every test's default): it must
// pass its schema and come out of it unchanged, so nothing depends on the parse stripping or rewriting what a procedure
// returns, and both modes send the same answer.
import { TRPCError } from '@trpc/server';
import type { z } from 'zod';
import type { AnswerChecks } from './context';

/** The first place where two JSON values differ (keys in any order), or undefined when they are the same. */
export function jsonDifference(a: unknown, b: unknown, path = ''): string | undefined {
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    return a === b ? undefined : path || '(the answer)';
  }
  if (Array.isArray(a) !== Array.isArray(b)) return path || '(the answer)';
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    const difference = jsonDifference(
      (a as Record<string, unknown>)[key],
      (b as Record<string, unknown>)[key],
      `${path}/${key}`,
    );
    if (difference !== undefined) return difference;
  }
  return undefined;
}

/** As the answer goes out: JSON, so keys whose value is undefined are absent on both sides. */
const asSent = (value: unknown): unknown => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));

/** Throws unless `data` passes `schema` and its parse leaves it as it is. */
function checkAnswer(schema: z.ZodType, data: unknown, path: string): void {
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    throw new TRPCError({
      code: 'INTERNAL_SERVER_ERROR',
      message: `${path}: answer fails its schema`,
      cause: parsed.error,
    });
  }
  const difference = jsonDifference(asSent(data), asSent(parsed.data));
  if (difference !== undefined) {
    throw new TRPCError({
      code: 'INTERNAL_SERVER_ERROR',
      message: `${path}: its schema changes the answer at ${difference} (a field the schema does not declare?)`,
    });
  }
}

interface MiddlewareOptions {
  ctx: { answerChecks?: AnswerChecks | undefined };
  path: string;
  next: () => Promise<{ ok: boolean; data?: unknown }>;
}
type Middleware = ((options: MiddlewareOptions) => Promise<unknown>) & { _type?: string };
interface ProcedureDef {
  output?: z.ZodType;
  middlewares: Middleware[];
}

/**
 * Replaces each procedure's output parse (the middleware tRPC's `.output()` adds, marked `_type: 'output'`) by one that
 * reads the context's `answerChecks`. Returns how many it replaced: every procedure with an output schema has one, and
 * a test holds the router to that (a tRPC upgrade that moved them would fail it, not pass answers unchecked).
 */
export function decideAnswerChecks(procedures: object): number {
  let replaced = 0;
  // tRPC's flat record of procedures by path (`issues.get`), typed as its nested routers.
  for (const procedure of Object.values(procedures as Record<string, { _def: ProcedureDef }>)) {
    const { output, middlewares } = procedure._def;
    const at = middlewares.findIndex((middleware) => middleware._type === 'output');
    if (output === undefined || at < 0) continue;
    const checked: Middleware = async ({ ctx, path, next }) => {
      const result = await next();
      if (result.ok && (ctx.answerChecks ?? 'strict') === 'strict') checkAnswer(output, result.data, path);
      return result;
    };
    checked._type = 'output';
    middlewares[at] = checked;
    replaced += 1;
  }
  return replaced;
}
