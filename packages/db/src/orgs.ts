// Organizations and their members.
import { type Org, type OrgRole, uniqueSlug } from '@collector/domain';
import type { Kysely } from 'kysely';
import { prepared } from './connection';
import type { Database, OrganizationsTable } from './schema';

export interface OrgRow extends OrganizationsTable {
  role: OrgRole;
}

export const toOrg = (row: OrgRow): Org => ({
  slug: row.slug,
  name: row.name,
  role: row.role,
  createdAt: row.created_at,
});

// Every read over all of a user's apps starts here: prepared once per connection.
const userOrgs = prepared((db, userId: string) =>
  db
    .selectFrom('memberships as m')
    .innerJoin('organizations as o', 'o.id', 'm.org_id')
    .leftJoin('users as u', (join) => join.onRef('u.id', '=', 'm.user_id').onRef('u.own_org_id', '=', 'm.org_id'))
    .select(['o.id', 'o.slug', 'o.name', 'o.created_at', 'm.role'])
    .where('m.user_id', '=', userId)
    .orderBy((eb) => eb.case().when('u.id', 'is not', null).then(0).else(1).end())
    .orderBy('m.created_at')
    .orderBy('o.slug'),
);

/**
 * The user's organizations with their role in each: their own first (the one the overview covers by default), then
 * the others, oldest membership first.
 */
export async function listUserOrgs(db: Kysely<Database>, userId: string): Promise<OrgRow[]> {
  return (await db.executeQuery(userOrgs(db, userId))).rows as OrgRow[];
}

export async function findOrgBySlug(db: Kysely<Database>, slug: string): Promise<OrganizationsTable | undefined> {
  return db.selectFrom('organizations').selectAll().where('slug', '=', slug).executeTakeFirst();
}

export async function findOrgById(db: Kysely<Database>, id: string): Promise<OrganizationsTable | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findMembershipRole(
  db: Kysely<Database>,
  orgId: string,
  userId: string,
): Promise<OrgRole | undefined> {
  const row = await db
    .selectFrom('memberships')
    .select('role')
    .where('org_id', '=', orgId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row?.role as OrgRole | undefined;
}

/** The user's own organization: the one made for them while they are still in it, else the first they joined. */
export async function ownOrgId(db: Kysely<Database>, userId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('memberships as m')
    .leftJoin('users as u', (join) => join.onRef('u.id', '=', 'm.user_id').onRef('u.own_org_id', '=', 'm.org_id'))
    .select('m.org_id')
    .where('m.user_id', '=', userId)
    .orderBy((eb) => eb.case().when('u.id', 'is not', null).then(0).else(1).end())
    .orderBy('m.created_at')
    .limit(1)
    .executeTakeFirst();
  return row?.org_id;
}

/**
 * Creates an organization with `ownerId` as its owner; `trx` is a transaction, so that the two rows go in together.
 * A slug that is taken is 'taken' when it was asked for; one made from the name gets a `-2`, `-3`... suffix instead.
 */
export async function insertOrg(
  trx: Kysely<Database>,
  org: { id: string; name: string; slug: string; slugGiven: boolean; ownerId: string; createdAt: number },
): Promise<OrganizationsTable | 'taken'> {
  let slug = org.slug;
  if (!org.slugGiven) {
    const similar = await trx
      .selectFrom('organizations')
      .select('slug')
      // Slugs hold no LIKE wildcards (% and _).
      .where('slug', 'like', `${slug}%`)
      .execute();
    const taken = new Set(similar.map((row) => row.slug));
    slug = uniqueSlug(slug, (candidate) => taken.has(candidate));
  }
  const row = await trx
    .insertInto('organizations')
    .values({ id: org.id, slug, name: org.name, created_at: org.createdAt })
    .onConflict((oc) => oc.column('slug').doNothing())
    .returningAll()
    .executeTakeFirst();
  if (!row) return 'taken';
  await trx
    .insertInto('memberships')
    .values({ org_id: org.id, user_id: org.ownerId, role: 'owner', created_at: org.createdAt })
    .execute();
  return row;
}

export async function setOwnOrg(db: Kysely<Database>, userId: string, orgId: string): Promise<void> {
  await db.updateTable('users').set({ own_org_id: orgId }).where('id', '=', userId).execute();
}

export interface MemberRow {
  user_id: string;
  email: string;
  role: OrgRole;
  created_at: number;
}

export async function listMembers(db: Kysely<Database>, orgId: string): Promise<MemberRow[]> {
  const rows = await db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.user_id', 'u.email', 'm.role', 'm.created_at'])
    .where('m.org_id', '=', orgId)
    .orderBy('m.created_at')
    .orderBy('m.user_id')
    .execute();
  return rows as MemberRow[];
}

export async function addMember(
  db: Kysely<Database>,
  member: { orgId: string; userId: string; role: OrgRole; now: number },
): Promise<void> {
  // Already a member: the invitation does not lower (or raise) the role they have.
  await db
    .insertInto('memberships')
    .values({ org_id: member.orgId, user_id: member.userId, role: member.role, created_at: member.now })
    .onConflict((oc) => oc.columns(['org_id', 'user_id']).doNothing())
    .execute();
}

/**
 * Changes a member's role, or removes them (role null), unless that would leave the organization without an owner.
 * The owners are locked first, so two owners demoting each other at once cannot both succeed.
 */
export async function changeMember(
  db: Kysely<Database>,
  change: { orgId: string; userId: string; role: OrgRole | null },
): Promise<'done' | 'not_found' | 'last_owner'> {
  return db.transaction().execute(async (trx) => {
    const owners = await trx
      .selectFrom('memberships')
      .select('user_id')
      .where('org_id', '=', change.orgId)
      .where('role', '=', 'owner')
      .forUpdate()
      .execute();
    const current = await trx
      .selectFrom('memberships')
      .select('role')
      .where('org_id', '=', change.orgId)
      .where('user_id', '=', change.userId)
      .forUpdate()
      .executeTakeFirst();
    if (!current) return 'not_found';
    if (current.role === 'owner' && change.role !== 'owner' && owners.length <= 1) return 'last_owner';
    if (change.role === null) {
      await trx
        .deleteFrom('memberships')
        .where('org_id', '=', change.orgId)
        .where('user_id', '=', change.userId)
        .execute();
    } else {
      await trx
        .updateTable('memberships')
        .set({ role: change.role })
        .where('org_id', '=', change.orgId)
        .where('user_id', '=', change.userId)
        .execute();
    }
    return 'done';
  });
}

export async function insertAudit(
  db: Kysely<Database>,
  entry: { orgId: string; action: string; actor: string; target: string; at: number },
): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({ org_id: entry.orgId, action: entry.action, actor: entry.actor, target: entry.target, at: entry.at })
    .execute();
}

export async function listAudit(
  db: Kysely<Database>,
  query: { orgId: string; before?: number | undefined; limit: number },
): Promise<Array<{ id: number; action: string; actor: string; target: string; at: number }>> {
  let select = db
    .selectFrom('audit_log')
    .select(['id', 'action', 'actor', 'target', 'at'])
    .where('org_id', '=', query.orgId);
  if (query.before !== undefined) select = select.where('id', '<', query.before);
  return select
    .orderBy('id', 'desc')
    .limit(query.limit + 1)
    .execute();
}

/** The longest-standing owner of an organization. */
export async function firstOwnerId(db: Kysely<Database>, orgId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('memberships')
    .select('user_id')
    .where('org_id', '=', orgId)
    .where('role', '=', 'owner')
    .orderBy('created_at')
    .limit(1)
    .executeTakeFirst();
  return row?.user_id;
}
