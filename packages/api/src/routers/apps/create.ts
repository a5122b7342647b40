import { insertApp, toApp } from '@collector/db';
import { newAppKey } from '../../ids';
import { authedProcedure } from '../../trpc';
import { createAppMeta, ZCreateAppRequestSchema, ZCreateAppResponseSchema } from './create.types';

export const createAppRoute = authedProcedure
  .meta(createAppMeta)
  .input(ZCreateAppRequestSchema)
  .output(ZCreateAppResponseSchema)
  .mutation(async ({ ctx, input }) => {
    const row = { app_key: newAppKey(input.type), user_id: ctx.session.user.id, name: input.name, type: input.type, created_at: ctx.clock() };
    await insertApp(ctx.db, row);
    return { app: toApp(row) };
  });
