import { listMembers, listPendingInvitations } from '@collector/db';
import type { OrgRole } from '@collector/domain';
import { authorizeOrg, decide } from '../../auth/authorize';
import { authedProcedure } from '../../trpc';
import { listMembersMeta, ZListMembersRequestSchema, ZListMembersResponseSchema } from './members.types';

export const listMembersRoute = authedProcedure
  .meta(listMembersMeta)
  .input(ZListMembersRequestSchema)
  .output(ZListMembersResponseSchema)
  .query(async ({ ctx, input }) => {
    const org = await authorizeOrg(ctx, input.slug, 'org.read');
    const members = (await listMembers(ctx.db, org.id)).map((row) => ({
      userId: row.user_id,
      email: row.email,
      role: row.role,
      joinedAt: row.created_at,
    }));
    const seesInvitations = decide(ctx.principal, 'members.manage', org.id, org.role) === 'allow';
    const invitations = seesInvitations
      ? (await listPendingInvitations(ctx.db, org.id, ctx.clock())).map((row) => ({
          id: row.id,
          email: row.email,
          role: row.role as OrgRole,
          expiresAt: row.expires_at,
        }))
      : [];
    return { members, invitations };
  });
