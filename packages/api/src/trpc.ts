// tRPC is initialised once here; only the base procedures leave this file.
import type { ErrorCode } from '@collector/domain';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { validateSessionToken } from './auth/sessions';
import type { Context } from './context';
import { fail, toAppError } from './errors';

export interface ContractMeta {
  /** Status of a successful answer; 200 unless stated. */
  status?: 200 | 201 | 204;
  /** Error codes this route can answer with besides the ones every route can (INTERNAL, UNAVAILABLE). */
  errors: ErrorCode[];
}

export type Meta = OpenApiMeta<{ contract?: ContractMeta }>;

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    // Never send stacks, whatever NODE_ENV says.
    isDev: false,
    errorFormatter({ shape, error }) {
      const appError = toAppError(error);
      return {
        ...shape,
        message: appError.message,
        data: { code: shape.data.code, httpStatus: shape.data.httpStatus, appError: appError.toBody() },
      };
    },
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure;

const BEARER = /^Bearer ([^\s]+)$/i;

export const authedProcedure = t.procedure.use(async ({ ctx, next }) => {
  const token = ctx.authorization ? BEARER.exec(ctx.authorization)?.[1] : undefined;
  if (!token) fail('UNAUTHENTICATED');
  const session = await validateSessionToken(ctx.db, token, ctx.clock());
  if (!session) fail('UNAUTHENTICATED');
  return next({ ctx: { ...ctx, session } });
});
