// The OpenAPI description of Sentry's web API under /api/0/ (services/collector/src/sentry-api/routes.ts): what
// sentry-cli and the bundler plugins call with SENTRY_AUTH_TOKEN. Answers are Sentry's shapes; errors are Sentry's
// `{ detail }`, not the collector's error body. The upload paths are described beside these, in their own file.
import { releaseLimits, slugPattern } from '@collector/domain';

const SENTRY_ERROR = {
  type: 'object',
  description: 'Sentry’s error body',
  properties: { detail: { type: 'string' } },
  required: ['detail'],
};

/** Sentry's `{ detail }` for each status an /api/0/ path may answer. */
function sentryErrors(statuses: Record<number, string>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries({
      401: 'No valid token or session (WWW-Authenticate: Bearer)',
      429: 'Rate limited: see Retry-After',
      500: 'A bug; the detail says nothing more',
      503: 'The database cannot be reached; see Retry-After',
      ...statuses,
    })
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([status, description]) => [
        status,
        { description, content: { 'application/json': { schema: SENTRY_ERROR } } },
      ]),
  );
}

const org = {
  name: 'org',
  in: 'path',
  required: true,
  description: 'The organization’s slug',
  schema: { type: 'string', pattern: slugPattern.source },
};
const project = {
  name: 'project',
  in: 'path',
  required: true,
  description: 'The app’s slug, or its project id (the number at the end of its DSN)',
  schema: { type: 'string', minLength: 1, maxLength: 100 },
};
const version = {
  name: 'version',
  in: 'path',
  required: true,
  description:
    'The release’s version, one path segment (`@` as is, `+` as %2B): 1 to 200 characters, no `/`, `\\`, newline or tab, not `.`, `..` or `latest`',
  schema: { type: 'string', minLength: 1, maxLength: 600 },
};
const listQuery = [
  {
    name: 'query',
    in: 'query',
    required: false,
    description: 'Only versions containing this (case-insensitive)',
    schema: { type: 'string', maxLength: releaseLimits.queryChars },
  },
  {
    name: 'per_page',
    in: 'query',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: releaseLimits.pageSize },
  },
  {
    name: 'cursor',
    in: 'query',
    required: false,
    description: 'Sentry’s `<value>:<offset>:0`; the offset pages',
    schema: { type: 'string', pattern: '^\\d{1,15}:\\d{1,9}:0$' },
  },
];

const date = { type: ['string', 'null'], format: 'date-time', maxLength: 64 };
const projectsField = {
  type: 'array',
  maxItems: releaseLimits.projects,
  description: 'Apps by slug or project id (3.x sends an id as a number); one the organization lacks: 400',
  items: {
    oneOf: [
      { type: 'string', minLength: 1, maxLength: 100 },
      { type: 'integer', minimum: 1, maximum: 999_999_999_999_999 },
    ],
  },
};

const DEPLOY = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    environment: { type: 'string' },
    name: { type: ['string', 'null'] },
    url: { type: ['string', 'null'] },
    dateStarted: { type: ['string', 'null'], format: 'date-time' },
    dateFinished: { type: 'string', format: 'date-time' },
  },
  required: ['id', 'environment', 'name', 'url', 'dateStarted', 'dateFinished'],
};

/** A Sentry project (one of the collector's apps), as a release and the projects list show it. */
const PROJECT = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    slug: { type: 'string' },
    name: { type: 'string' },
    platform: { type: 'string' },
  },
  required: ['id', 'slug', 'name', 'platform'],
};

const RELEASE = {
  type: 'object',
  description:
    'Sentry’s release object (the fields sentry-cli reads). newGroups: issues whose first event named it; firstEvent, lastEvent: its first and last event (of every event received: retention moves neither); commits are not kept (commitCount 0, authors []).',
  properties: {
    version: { type: 'string' },
    shortVersion: { type: 'string' },
    status: { type: 'string', const: 'open' },
    ref: { type: ['string', 'null'] },
    url: { type: ['string', 'null'] },
    dateCreated: { type: 'string', format: 'date-time' },
    dateStarted: { type: ['string', 'null'], format: 'date-time' },
    dateReleased: { type: ['string', 'null'], format: 'date-time' },
    firstEvent: { type: ['string', 'null'], format: 'date-time' },
    lastEvent: { type: ['string', 'null'], format: 'date-time' },
    newGroups: { type: 'integer' },
    commitCount: { type: 'integer' },
    lastCommit: { type: 'null' },
    deployCount: { type: 'integer' },
    lastDeploy: { oneOf: [DEPLOY, { type: 'null' }] },
    authors: { type: 'array', items: { type: 'object' } },
    owner: { type: 'null' },
    data: { type: 'object' },
    projects: { type: 'array', items: PROJECT },
  },
  required: ['version', 'shortVersion', 'dateCreated', 'dateReleased', 'newGroups', 'lastEvent', 'projects'],
};

const json = (schema: unknown, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});
const body = (schema: unknown) => ({ required: true, content: { 'application/json': { schema } } });
const security = [{ bearer: [] }, { apiToken: [] }];

const NEW_RELEASE = {
  type: 'object',
  properties: {
    version: { type: 'string', minLength: 1, maxLength: 200 },
    projects: projectsField,
    ref: { type: ['string', 'null'], maxLength: releaseLimits.refChars },
    url: { type: ['string', 'null'], maxLength: releaseLimits.urlChars },
    dateStarted: date,
    dateReleased: date,
  },
  required: ['version', 'projects'],
};
const UPDATED_RELEASE = {
  type: 'object',
  description:
    'Finalize with dateReleased; projects are added. Other fields Sentry takes (refs, commits, status) are ignored.',
  properties: {
    ref: { type: ['string', 'null'], maxLength: releaseLimits.refChars },
    url: { type: ['string', 'null'], maxLength: releaseLimits.urlChars },
    dateStarted: date,
    dateReleased: date,
    projects: projectsField,
  },
};
const NEW_DEPLOY = {
  type: 'object',
  properties: {
    environment: { type: 'string', minLength: 1, maxLength: releaseLimits.environmentChars },
    name: { type: ['string', 'null'], maxLength: releaseLimits.deployNameChars },
    url: { type: ['string', 'null'], maxLength: releaseLimits.urlChars },
    dateStarted: date,
    dateFinished: date,
    projects: projectsField,
  },
  required: ['environment'],
};

const tags = ['sentry-api'];
const notFound = { 404: 'No such organization (or not the caller’s), project or release' };
const invalid = {
  400: 'The body is not valid JSON, or a field (the version, a project) is not acceptable: the detail says which',
};
const forbidden = { 403: 'The token lacks scope releases' };

/** The operations of a releases collection (organization's or project's). */
function releasesCollection(scope: string, parameters: unknown[]) {
  return {
    get: {
      operationId: `sentry-${scope}-releases-list`,
      summary: `The ${scope}’s releases, newest first`,
      tags,
      security,
      parameters: [...parameters, ...listQuery],
      responses: {
        '200': json({ type: 'array', items: RELEASE }, 'Releases'),
        ...sentryErrors({ ...forbidden, ...notFound }),
      },
    },
    post: {
      operationId: `sentry-${scope}-releases-create`,
      summary:
        scope === 'project'
          ? 'Create a release of this project (sentry-cli 2.x with one project)'
          : 'Create a release of these projects',
      tags,
      security,
      parameters,
      requestBody: body(NEW_RELEASE),
      responses: {
        '201': json(RELEASE, 'Created'),
        '208': json(RELEASE, 'The version exists: the release, with the named projects added'),
        ...sentryErrors({ ...invalid, ...forbidden, ...notFound, 413: 'The body is over 64 KiB' }),
      },
    },
  };
}

/** The operations of one release (organization's or project's path). */
function releaseItem(scope: string, parameters: unknown[]) {
  const all = [...parameters, version];
  return {
    get: {
      operationId: `sentry-${scope}-release-get`,
      summary: 'A release',
      tags,
      security,
      parameters: all,
      responses: { '200': json(RELEASE, 'The release'), ...sentryErrors({ ...invalid, ...forbidden, ...notFound }) },
    },
    put: {
      operationId: `sentry-${scope}-release-update`,
      summary: 'Finalize or edit a release',
      tags,
      security,
      parameters: all,
      requestBody: body(UPDATED_RELEASE),
      responses: {
        '200': json(RELEASE, 'The release as changed'),
        ...sentryErrors({ ...invalid, ...forbidden, ...notFound, 413: 'The body is over 64 KiB' }),
      },
    },
    delete: {
      operationId: `sentry-${scope}-release-delete`,
      summary: 'Delete a release with its deploys (artifact bundles stay, shared by checksum)',
      tags,
      security,
      parameters: all,
      responses: {
        '204': { description: 'Deleted, no body' },
        ...sentryErrors({ ...invalid, ...forbidden, ...notFound }),
      },
    },
  };
}

/** Path items of /api/0/: who the token is, its organization, the organization's projects, releases and deploys. */
export function sentryApiPaths(): Record<string, unknown> {
  return {
    '/api/0/': {
      get: {
        operationId: 'sentry-auth-info',
        summary: 'Who the token is: Sentry’s scope names, and the user (null for an org token)',
        tags,
        security,
        responses: {
          '200': json(
            {
              type: 'object',
              properties: {
                version: { type: 'string', const: '0' },
                auth: {
                  type: 'object',
                  properties: { scopes: { type: 'array', items: { type: 'string' } } },
                  required: ['scopes'],
                },
                user: { type: ['object', 'null'] },
              },
              required: ['version', 'auth', 'user'],
            },
            'The token',
          ),
          ...sentryErrors({}),
        },
      },
    },
    '/api/0/organizations/{org}/': {
      get: {
        operationId: 'sentry-organization',
        summary: 'An organization, as Sentry describes one',
        tags,
        security,
        parameters: [org],
        responses: {
          '200': json(
            {
              type: 'object',
              properties: {
                id: { type: 'string' },
                slug: { type: 'string' },
                name: { type: 'string' },
                dateCreated: { type: 'string', format: 'date-time' },
              },
              required: ['id', 'slug', 'name', 'dateCreated'],
            },
            'The organization',
          ),
          ...sentryErrors({ ...forbidden, ...notFound }),
        },
      },
    },
    '/api/0/organizations/{org}/projects/': {
      get: {
        operationId: 'sentry-organization-projects',
        summary: 'The organization’s apps as Sentry projects (id: the DSN’s project id)',
        tags,
        security,
        parameters: [org],
        responses: {
          '200': json(
            {
              type: 'array',
              items: PROJECT,
            },
            'Its projects',
          ),
          ...sentryErrors({ ...forbidden, ...notFound }),
        },
      },
    },
    '/api/0/organizations/{org}/releases/': releasesCollection('organization', [org]),
    '/api/0/organizations/{org}/releases/{version}/': releaseItem('organization', [org]),
    '/api/0/organizations/{org}/releases/{version}/deploys/': {
      get: {
        operationId: 'sentry-deploys-list',
        summary: 'A release’s deploys, newest first',
        tags,
        security,
        parameters: [org, version],
        responses: {
          '200': json({ type: 'array', items: DEPLOY }, 'Deploys'),
          ...sentryErrors({ ...invalid, ...forbidden, ...notFound }),
        },
      },
      post: {
        operationId: 'sentry-deploys-create',
        summary: 'Record a deploy of a release (dateFinished: now unless given)',
        tags,
        security,
        parameters: [org, version],
        requestBody: body(NEW_DEPLOY),
        responses: {
          '201': json(DEPLOY, 'Recorded'),
          ...sentryErrors({ ...invalid, ...forbidden, ...notFound, 413: 'The body is over 64 KiB' }),
        },
      },
    },
    '/api/0/organizations/{org}/repos/': {
      get: {
        operationId: 'sentry-repos-list',
        summary: 'The organization’s linked repositories: none (commits are not kept), read by the bundler plugins',
        tags,
        security,
        parameters: [org],
        responses: {
          '200': json({ type: 'array', maxItems: 0, items: { type: 'object' } }, 'Always empty'),
          ...sentryErrors({ ...forbidden, ...notFound }),
        },
      },
    },
    '/api/0/projects/{org}/{project}/releases/': releasesCollection('project', [org, project]),
    '/api/0/projects/{org}/{project}/releases/{version}/': releaseItem('project', [org, project]),
  };
}
