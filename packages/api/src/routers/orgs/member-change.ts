// Changing or removing a member, with the rules both share: who may, and that an organization keeps an owner.
import { changeMember, type Db, findMembershipRole, insertAudit } from '@collector/db';
import type { OrgRole } from '@collector/domain';
import { actorName, authorizeOrg, type Principal } from '../../auth/authorize';
import { fail } from '../../errors';

export async function changeMembership(
  caller: { db: Db; principal: Principal; clock: () => number },
  change: { slug: string; userId: string; role: OrgRole | null },
): Promise<{ orgId: string; previous: OrgRole }> {
  const leaving = change.role === null && caller.principal.user?.id === change.userId;
  // Leaving is every member's right; anything else is managing members.
  const org = await authorizeOrg(caller, change.slug, leaving ? 'org.read' : 'members.manage');
  const previous = await findMembershipRole(caller.db, org.id, change.userId);
  if (!previous) fail('NOT_FOUND');
  // Owners are made, unmade and removed by owners only.
  if (!leaving && (previous === 'owner' || change.role === 'owner'))
    await authorizeOrg(caller, change.slug, 'owners.manage');
  const result = await changeMember(caller.db, { orgId: org.id, userId: change.userId, role: change.role });
  if (result === 'not_found') fail('NOT_FOUND');
  if (result === 'last_owner') {
    fail('CONFLICT', { details: [{ path: 'userId', message: 'is the last owner: make another owner first' }] });
  }
  const action = change.role === null ? (leaving ? 'member.leave' : 'member.remove') : 'member.role';
  const target = change.role === null ? change.userId : `${change.userId}: ${previous} -> ${change.role}`;
  await insertAudit(caller.db, {
    orgId: org.id,
    action,
    actor: actorName(caller.principal),
    target,
    at: caller.clock(),
  });
  return { orgId: org.id, previous };
}
