import { z } from 'zod';
import { slugParameter } from '../../schemas';
import type { Meta } from '../../trpc';
import { pathUserId } from './shapes';

export const removeMemberMeta: Meta = {
  openapi: {
    method: 'DELETE',
    path: '/api/orgs/{slug}/members/{userId}',
    summary: 'Remove a member (or leave)',
    description:
      'Owners and admins remove members (only an owner removes an owner); any member may remove themself. The last owner cannot ' +
      'be removed: 409 CONFLICT. The member loses access on their next request; their user tokens with it, the org’s tokens stay.',
    tags: ['organizations'],
  },
  contract: { status: 204, errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND', 'CONFLICT'] },
};

export const ZRemoveMemberRequestSchema = z.object({ slug: slugParameter, userId: pathUserId });
export const ZRemoveMemberResponseSchema = z.void();
