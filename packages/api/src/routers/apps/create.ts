import { insertApp, toApp } from '@collector/db';
import { newAppKey, newPublicKey } from '../../ids';
import { authedProcedure } from '../../trpc';
import { createAppMeta, ZCreateAppRequestSchema, ZCreateAppResponseSchema } from './create.types';

export const createAppRoute = authedProcedure
  .meta(createAppMeta)
  .input(ZCreateAppRequestSchema)
  .output(ZCreateAppResponseSchema)
  .mutation(async ({ ctx, input }) => {
    const row = await insertApp(ctx.db, {
      app_key: newAppKey(input.type),
      user_id: ctx.session.user.id,
      name: input.name,
      type: input.type,
      created_at: ctx.clock(),
      public_key: newPublicKey(),
    });
    return { app: toApp(row, ctx.publicUrl()) };
  });
