// What the routes that read the caller's apps share: the owner check, and for reads over all of the caller's apps or
// one of them, the query that names them and a window of time.
import { type Db, isAppOwnedBy } from '@collector/db';
import { z } from 'zod';
import { fail } from '../errors';
import { queryAppKey, queryEpochMs } from '../schemas';

/** Another user's app is answered exactly like one that does not exist. */
export async function assertOwnApp(db: Db, appKey: string, userId: string): Promise<void> {
  if (!(await isAppOwnedBy(db, appKey, userId))) fail('NOT_FOUND');
}

/** The filter of a read over all of the caller's apps, or over the one `appKey` names once it is known to be theirs. */
export async function ownAppsFilter<Input extends { appKey?: string | undefined }>(
  caller: { db: Db; session: { user: { id: string } } },
  input: Input,
): Promise<Input & { userId: string }> {
  const userId = caller.session.user.id;
  if (input.appKey !== undefined) await assertOwnApp(caller.db, input.appKey, userId);
  return { userId, ...input };
}

/** All of the caller's apps or one (appKey), from (inclusive) to (exclusive). */
export const ZOwnAppsWindowSchema = z
  .object({ appKey: queryAppKey.optional(), from: queryEpochMs.optional(), to: queryEpochMs.optional() })
  .refine((query) => query.from === undefined || query.to === undefined || query.from <= query.to, {
    path: ['to'],
    message: 'must not be before from',
  });
