// Sentry's own web API (/api/0/), the part its CLI and bundler plugins call before anything else: who the token is,
// its organization and that organization's projects (the collector's apps). Answers are Sentry's shapes; access is
// decided by auth/authorize.ts, as for every other route.
import { type Db, listApps, toApp } from '@collector/db';
import type { TokenScope } from '@collector/domain';
import { authorizeOrg, type Principal } from './auth/authorize';

/** Sentry's scope names for each of the collector's scopes (what sentry-cli prints and checks). */
const SENTRY_SCOPES: Record<TokenScope, string[]> = {
  read: ['org:read', 'project:read', 'event:read', 'team:read', 'member:read'],
  write: ['project:write', 'event:write', 'event:admin'],
  releases: ['project:releases', 'org:ci'],
};

interface SentryCaller {
  db: Db;
  principal: Principal;
  publicUrl: () => string;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** `GET /api/0/`: the token's scopes and user (null for an org token, which acts for no one). */
export function sentryAuthInfo(caller: SentryCaller) {
  const { principal } = caller;
  const scopes = principal.kind === 'session' ? (['read', 'write', 'releases'] as const) : principal.scopes;
  const user = principal.user && {
    id: principal.user.id,
    email: principal.user.email,
    username: principal.user.email,
    name: principal.user.email,
    dateJoined: iso(principal.user.createdAt),
  };
  return { version: '0', auth: { scopes: scopes.flatMap((scope) => SENTRY_SCOPES[scope]) }, user };
}

/** `GET /api/0/organizations/{org}/`. */
export async function sentryOrganization(caller: SentryCaller, slug: string) {
  const org = await authorizeOrg(caller, slug, 'org.read');
  return { id: org.id, slug: org.slug, name: org.name, dateCreated: iso(org.createdAt), status: { id: 'active' } };
}

/** `GET /api/0/organizations/{org}/projects/`: the organization's apps as Sentry projects (id: the DSN's project id). */
export async function sentryProjects(caller: SentryCaller, slug: string) {
  const org = await authorizeOrg(caller, slug, 'app.read');
  const apps = await listApps(caller.db, [org.id]);
  return apps.map((row) => {
    const app = toApp(row, caller.publicUrl());
    return {
      id: String(row.project_id),
      slug: app.slug,
      name: app.name,
      platform: app.type,
      dateCreated: iso(app.createdAt),
      organization: { id: org.id, slug: org.slug, name: org.name },
      team: null,
      teams: [],
    };
  });
}
