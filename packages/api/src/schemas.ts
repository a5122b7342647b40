// Response shapes shared by several routes, and strict parsers for query strings.
import {
  appTypes,
  eventLevels,
  isStorableText,
  issueStatuses,
  limits,
  orgRoles,
  slugSchema,
  storedEventSchema,
  UNSTORABLE_MESSAGE,
} from '@collector/domain';
import { z } from 'zod';

const epochMs = z.int().min(0).meta({ description: 'Milliseconds since the Unix epoch' });

export const ZUserSchema = z
  .object({
    id: z.string(),
    email: z.string().meta({ format: 'email', description: 'Trimmed and lower-cased' }),
    createdAt: epochMs,
  })
  .meta({ id: 'User' });

export const ZAppSchema = z
  .object({
    appKey: z.string(),
    name: z.string(),
    type: z.enum(appTypes),
    createdAt: epochMs,
    dsn: z.string().meta({
      description:
        "Where Sentry SDKs send this app's events: `<scheme>://<publicKey>@<host>/<projectId>`, the base from PUBLIC_URL",
      example: 'http://0123456789abcdef0123456789abcdef@localhost:3100/1',
    }),
    slug: z.string().meta({
      description: 'Unique within its organization, from the name, never all digits (Sentry’s project slug)',
    }),
    org: z.string().meta({ description: 'The slug of its organization' }),
  })
  .meta({ id: 'App' });

export const ZOrgRoleSchema = z.enum(orgRoles);

export const ZOrgSchema = z
  .object({
    slug: z.string(),
    name: z.string(),
    role: ZOrgRoleSchema.meta({ description: 'The caller’s role in it' }),
    createdAt: epochMs,
  })
  .meta({ id: 'Org' });

/** An organization's slug, in a query or a path. */
export const slugParameter = slugSchema.meta({
  description: 'An organization’s slug: 1 to 50 of a-z, 0-9 and -, starting with a letter or digit',
});

const ZPersonSchema = z.object({ id: z.string(), email: z.string().meta({ format: 'email' }) }).meta({ id: 'Person' });
export const ZNullablePersonSchema = ZPersonSchema.nullable();

export const ZIssueSchema = z
  .object({
    id: z.string().meta({ description: '<appKey>:<fingerprint>' }),
    appKey: z.string(),
    fingerprint: z.string(),
    message: z.string(),
    errorType: z.string(),
    eventCount: z.int(),
    userCount: z.int().meta({ description: 'Distinct anonymousIds among its events' }),
    firstSeenAt: epochMs,
    lastSeenAt: epochMs,
    status: z.enum(issueStatuses).meta({
      description: 'New issues are unresolved; an event for a resolved issue makes it unresolved again (a regression)',
    }),
    statusChangedAt: epochMs.nullable().meta({
      description:
        'When the issue took its status: when it was created, changed by PATCH, or regressed (null for issues older than triage)',
    }),
    regressedAt: epochMs.nullable().meta({
      description: 'When an event last reopened it after it was resolved (the receipt of that event); null if never',
    }),
    culprit: z.string().nullable().meta({
      description:
        'Where it happens: `function (file)` of the innermost in-app stack frame, or a failed request’s method and URL path',
    }),
    level: z.enum(eventLevels).meta({ description: 'Level of its latest event; error when the event had none' }),
    lastRelease: z.string().nullable().meta({ description: 'Release of its latest event that had one' }),
    assignee: ZNullablePersonSchema.meta({ description: 'The member it is assigned to, or null' }),
    unhandled: z.boolean().meta({
      description: 'Whether any of its events was unhandled (exception.mechanism.handled false): the unhandled badge',
    }),
    groupingVersion: z.int().nullable().meta({
      description:
        'The grouping version that made its fingerprint (1 for issues older than versions); null: the client sent its own',
    }),
  })
  .meta({ id: 'Issue' });

export const ZIssueStatusSchema = z.enum(issueStatuses);

export const ZEventSchema = storedEventSchema.extend({ receivedAt: epochMs }).meta({ id: 'Event' });

export const ZAuthResponseSchema = z.object({ token: z.string(), user: ZUserSchema });

// Numbers in the query are integers to every client (the OpenAPI document, the typed client). Over REST a query
// value is text: the REST layer hands it over as a number only when it is written as a canonical integer, so "",
// "abc", "1.5", "1e3" and "01" reach these schemas as text and fail, never a default (api/src/rest.ts, queryValue).
const queryInteger = (min: number, max: number) => z.int().min(min).max(max);

export const queryEpochMs = queryInteger(0, 8_640_000_000_000_000).meta({
  description: 'Milliseconds since the Unix epoch',
});

export const queryPageSize = (fallback: number) =>
  queryInteger(1, limits.pageSizeMax)
    .default(fallback)
    .meta({ description: `1 to ${limits.pageSizeMax}, default ${fallback}` });

/** Any printable key; a malformed one simply matches no app (404). */
export const queryAppKey = z
  .string()
  .min(1)
  .max(128)
  .refine(isStorableText, UNSTORABLE_MESSAGE)
  .meta({ description: 'Only this app (one of the caller’s)' });
