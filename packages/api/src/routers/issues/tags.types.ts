import { z } from 'zod';
import type { Meta } from '../../trpc';
import { ZIssueIdSchema } from './get.types';

/** Values shown per tag key: Sentry's tags panel shows the top values too. */
export const TAG_VALUES_PER_KEY = 10;

export const issueTagsMeta: Meta = {
  openapi: {
    method: 'GET',
    path: '/api/issues/{id}/tags',
    summary: 'The commonest values of each of an issue’s tags, with exact counts',
    description:
      `For each key (by name), the ${TAG_VALUES_PER_KEY} commonest values (ties by value) and how many of the issue’s ` +
      'events had each, counting every event accepted. Keys: the tags the events sent, and those derived when not sent ' +
      '(level, handled yes/no, browser, os, runtime and device from contexts, server_name, logger, transaction), plus ' +
      'release and environment.',
    tags: ['dashboard'],
  },
  contract: { errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND'] },
};

export const ZIssueTagsRequestSchema = z.object({ id: ZIssueIdSchema });

export const ZIssueTagsResponseSchema = z.object({
  tags: z.array(
    z.object({
      key: z.string(),
      values: z.array(z.object({ value: z.string(), events: z.int().min(1) })),
    }),
  ),
});
