import { z } from 'zod';
import { slugParameter, ZOrgRoleSchema } from '../../schemas';
import type { Meta } from '../../trpc';
import { pathUserId, ZMemberSchema } from './shapes';

export const updateMemberMeta: Meta = {
  openapi: {
    method: 'PATCH',
    path: '/api/orgs/{slug}/members/{userId}',
    summary: 'Change a member’s role',
    description:
      'Owners and admins change roles; only an owner makes or unmakes an owner. The last owner cannot be demoted: 409 CONFLICT. ' +
      'Takes effect on the member’s next request.',
    tags: ['organizations'],
  },
  contract: { errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND', 'CONFLICT'] },
};

export const ZUpdateMemberRequestSchema = z.object({ slug: slugParameter, userId: pathUserId, role: ZOrgRoleSchema });
export const ZUpdateMemberResponseSchema = z.object({ member: ZMemberSchema });
