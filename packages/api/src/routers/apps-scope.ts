// What the routes that read over an organization's apps share: the query that names them (one app, an organization,
// or the caller's own organization) and a window of time, and the check of that query.

import type { Db } from '@collector/db';
import { z } from 'zod';
import { type Action, authorizeApp, authorizeOneOrg, type Principal } from '../auth/authorize';
import { queryAppKey, queryEpochMs, slugParameter } from '../schemas';

/**
 * The organization a read covers: the one of `appKey` (which the caller must be allowed to read), else `org`, else the
 * caller's own. Reads over all apps cover one organization so that distinct counts stay exact.
 */
export async function appsScope<Input extends { appKey?: string | undefined; org?: string | undefined }>(
  caller: { db: Db; principal: Principal },
  input: Input,
  action: Action = 'app.read',
): Promise<Input & { orgId: string }> {
  const { orgId } =
    input.appKey !== undefined
      ? await authorizeApp(caller, input.appKey, action)
      : await authorizeOneOrg(caller, input.org, action);
  return { ...input, orgId };
}

/** One organization's apps (`org`, else the caller's own) or one app (appKey), from (inclusive) to (exclusive). */
export const ZAppsWindowSchema = z
  .object({
    appKey: queryAppKey.optional(),
    org: slugParameter.optional(),
    from: queryEpochMs.optional(),
    to: queryEpochMs.optional(),
  })
  .refine((query) => query.from === undefined || query.to === undefined || query.from <= query.to, {
    path: ['to'],
    message: 'must not be before from',
  });
