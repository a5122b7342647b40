// Sentry's releases and deploys under /api/0/, as sentry-cli 2.x (project-scoped paths when one project is named) and
// 3.x call them: Sentry's release object (the fields sentry-cli's ReleaseInfo and Deploy read), 201 on create, 208
// when the version exists, `{ detail }` on errors. Who may ask is auth/authorize.ts's `releases.manage`.
import {
  type AppRow,
  createRelease,
  type Db,
  type DeployRow,
  deleteRelease,
  deploySummaries,
  findOrgApp,
  findRelease,
  insertDeploy,
  listApps,
  listDeploys,
  listReleases,
  type ReleaseRow,
  releaseActivity,
  releaseAppKeys,
  updateRelease,
} from '@collector/db';
import { releaseLimits, releaseVersionProblem, shortReleaseVersion, validationError } from '@collector/domain';
import { z } from 'zod';
import { authorizeOrg, type OrgAccess, type Principal } from './auth/authorize';
import { contractError } from './errors';
import { newDeployId } from './ids';

interface SentryCaller {
  db: Db;
  principal: Principal;
  publicUrl: () => string;
  /** The request's time (the server's clock). */
  now: number;
}

/** What the route hands over: the path's parts, the query, the parsed JSON body. */
export interface SentryReleaseRequest {
  org: string;
  project?: string;
  version?: string;
  query?: Record<string, unknown>;
  body?: unknown;
}

/** An answer with a status other than 200 (the route sends it with that status; no body: empty). */
export class StatusAnswer {
  constructor(
    readonly status: 201 | 204 | 208,
    readonly body?: unknown,
  ) {}
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** RFC 3339 as sentry-cli writes it (nanoseconds included); kept as milliseconds. */
const date = z
  .string()
  .max(64)
  .refine((value) => /^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(Date.parse(value)), 'must be an RFC 3339 date')
  .transform((value) => Date.parse(value));
const optional = <T extends z.ZodType>(schema: T) => schema.nullish().transform((value) => value ?? undefined);

/** A project as sentry-cli names it: its slug, or its id (3.x sends a numeric id as a number). */
const projectName = z.union([z.string().min(1).max(100), z.number().int().min(1).max(999_999_999_999_999)]);

// Loose objects: Sentry's clients send fields the collector does not keep (refs, commits, status), which are ignored.
const ZNewRelease = z.looseObject({
  version: z.string().max(1000),
  projects: z.array(projectName).max(releaseLimits.projects),
  ref: optional(z.string().max(releaseLimits.refChars)),
  url: optional(z.string().max(releaseLimits.urlChars)),
  dateStarted: optional(date),
  dateReleased: optional(date),
});
const ZUpdatedRelease = z.looseObject({
  ref: optional(z.string().max(releaseLimits.refChars)),
  url: optional(z.string().max(releaseLimits.urlChars)),
  dateStarted: optional(date),
  dateReleased: optional(date),
  projects: optional(z.array(projectName).max(releaseLimits.projects)),
});
const ZNewDeploy = z.looseObject({
  environment: z.string().min(1).max(releaseLimits.environmentChars),
  name: optional(z.string().max(releaseLimits.deployNameChars)),
  url: optional(z.string().max(releaseLimits.urlChars)),
  dateStarted: optional(date),
  dateFinished: optional(date),
  projects: optional(z.array(projectName).max(releaseLimits.projects)),
});

function parse<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  throw validationError(
    result.error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message })),
  );
}

/** A version from a path or a body, checked as Sentry checks it. */
function checkVersion(version: string, path: string): string {
  const problem = releaseVersionProblem(version);
  if (problem !== undefined) throw validationError([{ path, message: `the release version ${problem}` }]);
  return version;
}

/** The apps a request's projects name, by slug or project id; one the organization lacks is a 400 naming it. */
async function resolveProjects(
  db: Db,
  orgId: string,
  names: ReadonlyArray<string | number>,
  path: string,
): Promise<AppRow[]> {
  const apps: AppRow[] = [];
  for (const name of new Set(names.map(String))) {
    const app = await findOrgApp(db, orgId, name);
    if (!app) throw validationError([{ path, message: `no project "${name}" in this organization` }]);
    apps.push(app);
  }
  return apps;
}

/** The organization and, for project-scoped paths, the app; a project the organization lacks: 404, as in Sentry. */
async function scope(caller: SentryCaller, request: SentryReleaseRequest) {
  const org = await authorizeOrg(caller, request.org, 'releases.manage');
  if (request.project === undefined) return { org, app: undefined };
  const app = await findOrgApp(caller.db, org.id, request.project);
  if (!app) throw contractError('NOT_FOUND');
  return { org, app };
}

/** A release of the path: in the organization and, on a project's path, of that project; else 404. */
async function releaseOf(caller: SentryCaller, org: OrgAccess, app: AppRow | undefined, version: string) {
  const release = await findRelease(caller.db, org.id, checkVersion(version, 'version'));
  if (!release) throw contractError('NOT_FOUND');
  if (app && !(await releaseAppKeys(caller.db, org.id, [version])).get(version)?.includes(app.app_key))
    throw contractError('NOT_FOUND');
  return release;
}

const presentDeploy = (deploy: DeployRow) => ({
  id: deploy.id,
  environment: deploy.environment,
  name: deploy.name,
  url: deploy.url,
  dateStarted: iso(deploy.date_started),
  dateFinished: iso(deploy.date_finished),
});

/** Sentry's release objects for these rows, with what the apps' events and the deploys say of each. */
async function presentReleases(caller: SentryCaller, org: OrgAccess, releases: ReleaseRow[]) {
  const versions = releases.map((release) => release.version);
  const [appKeys, apps, deploys] = await Promise.all([
    releaseAppKeys(caller.db, org.id, versions),
    listApps(caller.db, [org.id]),
    deploySummaries(caller.db, org.id, versions, 1),
  ]);
  const appsByKey = new Map(apps.map((app) => [app.app_key, app]));
  const allAppKeys = [...new Set([...appKeys.values()].flat())];
  const activity = await releaseActivity(caller.db, allAppKeys, versions);
  return releases.map((release) => {
    const seen = activity.get(release.version);
    const deploy = deploys.get(release.version);
    const lastDeploy = deploy?.latest[0];
    return {
      version: release.version,
      shortVersion: shortReleaseVersion(release.version),
      status: 'open',
      ref: release.ref,
      url: release.url,
      dateCreated: iso(release.created_at),
      dateStarted: iso(release.date_started),
      dateReleased: iso(release.date_released),
      firstEvent: iso(seen?.firstEvent ?? null),
      lastEvent: iso(seen?.lastEvent ?? null),
      newGroups: seen?.newIssues ?? 0,
      commitCount: 0,
      lastCommit: null,
      deployCount: deploy?.count ?? 0,
      lastDeploy: lastDeploy ? presentDeploy(lastDeploy) : null,
      authors: [],
      owner: null,
      data: {},
      projects: (appKeys.get(release.version) ?? []).flatMap((appKey) => {
        const app = appsByKey.get(appKey);
        if (!app) return [];
        return [
          {
            id: String(app.project_id),
            slug: app.slug,
            name: app.name,
            platform: app.type,
            platforms: [app.type],
            newGroups: 0,
            hasHealthData: false,
          },
        ];
      }),
    };
  });
}

async function presentRelease(caller: SentryCaller, org: OrgAccess, release: ReleaseRow) {
  return (await presentReleases(caller, org, [release]))[0];
}

/** `POST .../releases/`: 201 with the new release, 208 with the existing one (given projects added to it). */
export async function sentryCreateRelease(caller: SentryCaller, request: SentryReleaseRequest): Promise<StatusAnswer> {
  const { org, app } = await scope(caller, request);
  const body = parse(ZNewRelease, request.body);
  const version = checkVersion(body.version, 'version');
  const apps = await resolveProjects(caller.db, org.id, body.projects, 'projects');
  if (app && !apps.some((named) => named.app_key === app.app_key)) apps.push(app);
  if (apps.length === 0) throw validationError([{ path: 'projects', message: 'name at least one project' }]);
  const { created, release } = await createRelease(
    caller.db,
    {
      org_id: org.id,
      version,
      ref: body.ref ?? null,
      url: body.url ?? null,
      created_at: caller.now,
      date_started: body.dateStarted ?? null,
      date_released: body.dateReleased ?? null,
    },
    apps.map((named) => named.app_key),
  );
  return new StatusAnswer(created ? 201 : 208, await presentRelease(caller, org, release));
}

/** `GET .../releases/`: newest first; Sentry's `query` (part of the version) and `per_page`, with `cursor` as offset. */
export async function sentryListReleases(caller: SentryCaller, request: SentryReleaseRequest) {
  const { org, app } = await scope(caller, request);
  // The service's query parser gives each key a list of strings (a repeated key: its first).
  const param = (key: string) => {
    const value = request.query?.[key];
    const first = Array.isArray(value) ? value[0] : value;
    return typeof first === 'string' ? first : undefined;
  };
  const text = param('query')?.slice(0, releaseLimits.queryChars);
  const perPage = Number(param('per_page'));
  const limit =
    Number.isInteger(perPage) && perPage >= 1 ? Math.min(perPage, releaseLimits.pageSize) : releaseLimits.pageSize;
  // Sentry's cursors read `<value>:<offset>:<is_prev>`; the offset is what pages here.
  const cursor = /^\d{1,15}:(\d{1,9}):0$/.exec(param('cursor') ?? '');
  const rows = await listReleases(caller.db, org.id, {
    ...(app ? { appKeys: [app.app_key] } : {}),
    ...(text ? { query: text } : {}),
    limit,
    offset: cursor ? Number(cursor[1]) : 0,
  });
  return presentReleases(caller, org, rows);
}

/** `GET .../releases/{version}/`. */
export async function sentryGetRelease(caller: SentryCaller, request: SentryReleaseRequest) {
  const { org, app } = await scope(caller, request);
  return presentRelease(caller, org, await releaseOf(caller, org, app, request.version ?? ''));
}

/** `PUT .../releases/{version}/`: finalize (`dateReleased`), or set ref, url, dateStarted; `projects` are added. */
export async function sentryUpdateRelease(caller: SentryCaller, request: SentryReleaseRequest) {
  const { org, app } = await scope(caller, request);
  const release = await releaseOf(caller, org, app, request.version ?? '');
  const body = parse(ZUpdatedRelease, request.body);
  if (body.projects !== undefined) {
    const apps = await resolveProjects(caller.db, org.id, body.projects, 'projects');
    await createRelease(
      caller.db,
      release,
      apps.map((named) => named.app_key),
    );
  }
  const changes = {
    ...(body.ref !== undefined ? { ref: body.ref } : {}),
    ...(body.url !== undefined ? { url: body.url } : {}),
    ...(body.dateStarted !== undefined ? { date_started: body.dateStarted } : {}),
    ...(body.dateReleased !== undefined ? { date_released: body.dateReleased } : {}),
  };
  const updated = await updateRelease(caller.db, org.id, release.version, changes);
  if (!updated) throw contractError('NOT_FOUND');
  return presentRelease(caller, org, updated);
}

/** `DELETE .../releases/{version}/`: 204; its deploys and app links go with it (artifacts are kept, by checksum). */
export async function sentryDeleteRelease(caller: SentryCaller, request: SentryReleaseRequest): Promise<StatusAnswer> {
  const { org, app } = await scope(caller, request);
  const release = await releaseOf(caller, org, app, request.version ?? '');
  if (!(await deleteRelease(caller.db, org.id, release.version))) throw contractError('NOT_FOUND');
  return new StatusAnswer(204);
}

/** `POST .../releases/{version}/deploys/`: 201 with the deploy. */
export async function sentryCreateDeploy(caller: SentryCaller, request: SentryReleaseRequest): Promise<StatusAnswer> {
  const { org } = await scope(caller, request);
  const release = await releaseOf(caller, org, undefined, request.version ?? '');
  const body = parse(ZNewDeploy, request.body);
  if (body.projects !== undefined) await resolveProjects(caller.db, org.id, body.projects, 'projects');
  const deploy = await insertDeploy(caller.db, {
    id: newDeployId(),
    org_id: org.id,
    version: release.version,
    environment: body.environment,
    name: body.name ?? null,
    url: body.url ?? null,
    date_started: body.dateStarted ?? null,
    date_finished: body.dateFinished ?? caller.now,
  });
  return new StatusAnswer(201, presentDeploy(deploy));
}

/** `GET .../releases/{version}/deploys/`: newest first. */
export async function sentryListDeploys(caller: SentryCaller, request: SentryReleaseRequest) {
  const { org } = await scope(caller, request);
  const release = await releaseOf(caller, org, undefined, request.version ?? '');
  return (await listDeploys(caller.db, org.id, release.version, releaseLimits.pageSize)).map(presentDeploy);
}

/**
 * `GET /api/0/organizations/{org}/repos/`: the organization's linked repositories, which the bundler plugins read
 * before `set-commits --auto`. The collector links none (commits are not kept), so the list is empty and the plugin
 * goes on without commits, as it does with a Sentry organization that has no repository integration.
 */
export async function sentryListRepos(caller: SentryCaller, request: SentryReleaseRequest) {
  await scope(caller, request);
  return [];
}
