// The one place that decides what a caller may do: every procedure asks here, with an action and the object (an
// organization, or an app and so its organization). Roles and scopes live in the policy table below; access per team
// or per app can be added here later without touching procedures.
import {
  type Db,
  findAppAccess,
  findMembershipRole,
  findOrgById,
  findOrgBySlug,
  listUserOrgs,
  ownOrgId,
} from '@collector/db';
import { type OrgRole, roleRank, type TokenScope, type User } from '@collector/domain';
import { fail } from '../errors';

/** Who is calling: a signed-in user, a user's API token (narrowed to its scopes), or an organization's token. */
export type Principal =
  | { kind: 'session'; user: User; sessionId: string }
  | { kind: 'user_token'; user: User; tokenId: string; tokenName: string; scopes: readonly TokenScope[] }
  | {
      kind: 'org_token';
      user: null;
      tokenId: string;
      tokenName: string;
      scopes: readonly TokenScope[];
      orgId: string;
      orgSlug: string;
    };

/**
 * Every action a procedure may ask about, with the least role in the object's organization and the token scope it
 * takes. Roles: owner (everything), admin (members, invitations, apps, alerts, org tokens), member (read, triage,
 * assign, comment). Scopes: read (GETs), write (triage, comments, alerts, apps), releases.
 */
const policy = {
  'org.read': { role: 'member', scope: 'read' },
  'members.manage': { role: 'admin', scope: 'write' },
  'owners.manage': { role: 'owner', scope: 'write' },
  'audit.read': { role: 'admin', scope: 'read' },
  'tokens.read': { role: 'admin', scope: 'read' },
  'tokens.manage': { role: 'admin', scope: 'write' },
  'app.read': { role: 'member', scope: 'read' },
  'app.create': { role: 'admin', scope: 'write' },
  'alerts.read': { role: 'member', scope: 'read' },
  'alerts.manage': { role: 'admin', scope: 'write' },
  'issue.triage': { role: 'member', scope: 'write' },
  // Issue 22. What sentry-cli and the bundler plugins do under /api/0/ (reads too: `releases list` runs on a token
  // of scope releases), and the dashboard's read of an app's releases.
  'releases.manage': { role: 'member', scope: 'releases' },
  'releases.read': { role: 'member', scope: 'read' },
} as const satisfies Record<string, { role: OrgRole; scope: TokenScope }>;

export type Action = keyof typeof policy;

/** An org token acts in its organization with an admin's role, narrowed to its scopes. */
const ORG_TOKEN_ROLE: OrgRole = 'admin';

export type Decision = 'allow' | 'not_found' | 'forbidden';

/**
 * The decision itself, on what is known of the object: its organization, and the caller's role there (undefined:
 * not a member). Not a member is not_found, as for an object that does not exist; a member short of the role, or a
 * token short of the scope, is forbidden.
 */
export function decide(
  principal: Principal,
  action: Action,
  orgId: string | null,
  role: OrgRole | undefined,
): Decision {
  const effectiveRole =
    principal.kind === 'org_token' ? (orgId !== null && orgId === principal.orgId ? ORG_TOKEN_ROLE : undefined) : role;
  if (orgId === null || effectiveRole === undefined) return 'not_found';
  const rule = policy[action];
  if (principal.kind !== 'session' && !principal.scopes.includes(rule.scope)) return 'forbidden';
  return roleRank[effectiveRole] >= roleRank[rule.role] ? 'allow' : 'forbidden';
}

function enforce(decision: Decision): void {
  if (decision === 'not_found') fail('NOT_FOUND');
  if (decision === 'forbidden') fail('FORBIDDEN');
}

interface Caller {
  db: Db;
  principal: Principal;
}

const userIdOf = (principal: Principal) => (principal.kind === 'org_token' ? null : principal.user.id);

/** The role the caller has in an organization: a member's, or an org token's in its own; undefined otherwise. */
async function roleIn(caller: Caller, orgId: string): Promise<OrgRole | undefined> {
  const userId = userIdOf(caller.principal);
  if (userId === null)
    return caller.principal.kind === 'org_token' && caller.principal.orgId === orgId ? ORG_TOKEN_ROLE : undefined;
  return findMembershipRole(caller.db, orgId, userId);
}

export interface OrgAccess {
  id: string;
  slug: string;
  name: string;
  createdAt: number;
  /** The caller's role there. */
  role: OrgRole;
}

/** The organization a slug names, when the caller may do `action` there; else 404 or 403. */
export async function authorizeOrg(caller: Caller, slug: string, action: Action): Promise<OrgAccess> {
  const org = await findOrgBySlug(caller.db, slug);
  const role = org && (await roleIn(caller, org.id));
  enforce(decide(caller.principal, action, org?.id ?? null, role));
  // enforce() threw unless both are known.
  const found = org as NonNullable<typeof org>;
  return { id: found.id, slug: found.slug, name: found.name, createdAt: found.created_at, role: role as OrgRole };
}

/** The organization of an app, when the caller may do `action` on the app; else 404 (also for no such app) or 403. */
export async function authorizeApp(caller: Caller, appKey: string, action: Action): Promise<{ orgId: string }> {
  const access = await findAppAccess(caller.db, appKey, userIdOf(caller.principal));
  const orgId = access?.orgId ?? null;
  const role = caller.principal.kind === 'org_token' ? undefined : access?.role;
  enforce(decide(caller.principal, action, orgId, role));
  return { orgId: orgId as string };
}

/**
 * The organizations where the caller may do `action`, for reads and changes over many objects (every app's issues).
 * A token without the action's scope is refused outright (403), since no organization could be read with it.
 */
export async function authorizedOrgs(caller: Caller, action: Action): Promise<OrgAccess[]> {
  const principal = caller.principal;
  if (principal.kind !== 'session' && !principal.scopes.includes(policy[action].scope)) fail('FORBIDDEN');
  const rows =
    principal.kind === 'org_token'
      ? [{ ...(await findOrgBySlug(caller.db, principal.orgSlug)), role: ORG_TOKEN_ROLE }]
      : await listUserOrgs(caller.db, principal.user.id);
  return rows
    .filter((row) => row.id !== undefined && decide(principal, action, row.id, row.role) === 'allow')
    .map((row) => ({
      id: row.id as string,
      slug: row.slug as string,
      name: row.name as string,
      createdAt: row.created_at as number,
      role: row.role,
    }));
}

/**
 * The organization a read over all apps covers: `slug` when given, else the caller's own (an org token's: its own).
 * One organization, so distinct counts (affected users) stay exact.
 */
export async function authorizeOneOrg(
  caller: Caller,
  slug: string | undefined,
  action: Action,
): Promise<{ orgId: string; slug: string }> {
  if (slug !== undefined) {
    const org = await authorizeOrg(caller, slug, action);
    return { orgId: org.id, slug: org.slug };
  }
  const principal = caller.principal;
  const orgId = principal.kind === 'org_token' ? principal.orgId : await ownOrgId(caller.db, principal.user.id);
  const org = orgId === undefined ? undefined : await findOrgById(caller.db, orgId);
  const role = org && (await roleIn(caller, org.id));
  enforce(decide(principal, action, org?.id ?? null, role));
  return { orgId: (org as NonNullable<typeof org>).id, slug: (org as NonNullable<typeof org>).slug };
}

/**
 * The user behind the call, for what only a person does (their account, their tokens, joining an organization):
 * an org token has none and is refused (403). `scope`: what a user token needs for it.
 */
export function requireUser(principal: Principal, scope: TokenScope): User {
  if (principal.kind === 'org_token') fail('FORBIDDEN');
  if (principal.kind === 'user_token' && !principal.scopes.includes(scope)) fail('FORBIDDEN');
  return principal.user;
}

/** The key of the caller's own rate-limit budgets: their user, or the token. */
export const principalKey = (principal: Principal) =>
  principal.kind === 'org_token' ? `token:${principal.tokenId}` : principal.user.id;

/** How the audit log and activity name the caller. */
export function actorName(principal: Principal): string {
  if (principal.kind === 'session') return principal.user.email;
  if (principal.kind === 'user_token') return `${principal.user.email} (token ${principal.tokenName})`;
  return `token ${principal.tokenName}`;
}
