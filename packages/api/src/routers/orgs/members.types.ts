import { z } from 'zod';
import { slugParameter } from '../../schemas';
import type { Meta } from '../../trpc';
import { ZInvitationSchema, ZMemberSchema } from './shapes';

export const listMembersMeta: Meta = {
  openapi: {
    method: 'GET',
    path: '/api/orgs/{slug}/members',
    summary: 'An organization’s members, and its pending invitations',
    description: 'Members oldest first. invitations: the pending ones, for owners and admins; [] for members.',
    tags: ['organizations'],
  },
  contract: { errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND'] },
};

export const ZListMembersRequestSchema = z.object({ slug: slugParameter });
export const ZListMembersResponseSchema = z.object({
  members: z.array(ZMemberSchema),
  invitations: z.array(ZInvitationSchema),
});
