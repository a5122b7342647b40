// Response shapes shared by several routes, and strict parsers for query strings.
import { appTypes, isStorableText, limits, storedEventSchema, UNSTORABLE_MESSAGE } from '@collector/domain';
import { z } from 'zod';

const epochMs = z.int().min(0).meta({ description: 'Milliseconds since the Unix epoch' });

export const ZUserSchema = z.object({ id: z.string(), email: z.string(), createdAt: epochMs }).meta({ id: 'User' });

export const ZAppSchema = z
  .object({
    appKey: z.string(),
    name: z.string(),
    type: z.enum(appTypes),
    createdAt: epochMs,
    dsn: z.string().meta({
      description: 'Where Sentry SDKs send this app\'s events: `<scheme>://<publicKey>@<host>/<projectId>`, the base from PUBLIC_URL',
      example: 'http://0123456789abcdef0123456789abcdef@localhost:3100/1',
    }),
  })
  .meta({ id: 'App' });

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
  })
  .meta({ id: 'Issue' });

export const ZEventSchema = storedEventSchema.extend({ receivedAt: epochMs }).meta({ id: 'Event' });

export const ZAuthResponseSchema = z.object({ token: z.string(), user: ZUserSchema });

// Query strings are parsed strictly: digits only, so "", "abc", "1e3" and "-1" are errors, never a default.
// These are string schemas on purpose: trpc-to-openapi coerces z.number() query fields ("" -> 0).
export const queryInteger = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,15}$/, 'must be an integer')
    .transform(Number)
    .pipe(z.int().min(min).max(max));

export const queryEpochMs = queryInteger(0, 8_640_000_000_000_000).meta({ description: 'Milliseconds since the Unix epoch' });

export const queryPageSize = (fallback: number) =>
  queryInteger(1, limits.pageSizeMax)
    .optional()
    .transform((value) => value ?? fallback)
    .meta({ description: `1 to ${limits.pageSizeMax}, default ${fallback}` });

/** Any printable key; a malformed one simply matches no app (404). */
export const queryAppKey = z.string().min(1).max(128).refine(isStorableText, UNSTORABLE_MESSAGE).meta({ description: 'Only this app (one of the caller’s)' });
