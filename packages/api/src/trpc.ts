// tRPC is initialised once here: the base procedures (public, authed), `router` and `createCallerFactory` leave this
// file, with the meta every procedure declares. Every tRPC error leaves with its contract code's HTTP status.
import type { ErrorCode } from '@collector/domain';
import { initTRPC } from '@trpc/server';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { authenticate } from './auth/principal';
import type { Context } from './context';
import { errorStatus, fail, toAppError } from './errors';

interface ContractMeta {
  /** Status of a successful answer; 200 unless stated. */
  status?: 200 | 201 | 202 | 204;
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
    // tRPC answers with data.httpStatus. Taken from the contract code, as REST does, not from the TRPCError, which is
    // INTERNAL_SERVER_ERROR (500) for whatever a procedure throws unwrapped, such as a frozen database's timeout.
    errorFormatter({ shape, error }) {
      const appError = toAppError(error);
      const { trpc, status } = errorStatus[appError.code];
      return {
        ...shape,
        code: TRPC_ERROR_CODES_BY_KEY[trpc],
        message: appError.message,
        data: { code: trpc, httpStatus: status, appError: appError.toBody() },
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
  const principal = await authenticate(ctx.db, token, ctx.clock());
  if (!principal) fail('UNAUTHENTICATED');
  return next({ ctx: { ...ctx, principal } });
});
