import {
  eventFieldChars,
  eventTypes,
  type IssueStatus,
  isStorableText,
  issueListSeriesDays,
  issueSearchMaxChars,
  issueSorts,
  issueStatuses,
  limits,
  parseSearch,
  UNSTORABLE_MESSAGE,
} from '@collector/domain';
import { z } from 'zod';
import { queryAppKey, queryPageSize, slugParameter, ZIssueSchema } from '../../schemas';
import type { Meta } from '../../trpc';

export const listIssuesMeta: Meta = {
  openapi: {
    method: 'GET',
    path: '/api/issues',
    summary: 'Issues, filtered and sorted',
    description:
      'Filters combine (all must hold); sort is descending, ties broken by id. total counts every issue that matches the filters, on every page. ' +
      'Pass nextCursor back as cursor, with the same filters and sort, for the next page; it is null on the last page. ' +
      'Pages are keyset pages: each holds the issues after the previous page’s last one in the order as it is when the page is read. ' +
      'No issue is skipped or repeated while events arrive, except that an issue whose sort key grows after its page was read ' +
      '(new events move it up) is then found by reading from the first page again, and that a late event can move an issue down in firstSeen order. ' +
      `Each issue carries series: its events per UTC day (by event timestamp) over the last ${issueListSeriesDays} days, today included, ` +
      'oldest first, every day present, exact (counted as events are accepted): the list’s sparkline.',
    tags: ['dashboard'],
  },
  contract: { errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND'] },
};

const text = (max: number) => z.string().min(1).max(max).refine(isStorableText, UNSTORABLE_MESSAGE);

/** One status or a comma-separated list of them; each must be known. */
const oneStatus = `(${issueStatuses.join('|')})`;
const statusList = z
  .string()
  .max(100)
  .regex(
    new RegExp(`^${oneStatus}(,${oneStatus})*$`),
    `must be ${issueStatuses.join(', ')} or a comma-separated list of them`,
  )
  .transform((value) => value.split(',') as IssueStatus[])
  .meta({ description: `One of ${issueStatuses.join(', ')}, or a comma-separated list of them; default all` });

export const ZListIssuesRequestSchema = z.object({
  appKey: queryAppKey.optional(),
  org: slugParameter
    .meta({ description: 'Only this organization’s issues (default: every organization of the caller)' })
    .optional(),
  assignee: z
    .string()
    .regex(/^(me|none|user_[a-z0-9]{1,64})$/, 'must be me, none or a user id')
    .meta({ description: 'me, none (unassigned) or a member’s user id' })
    .optional(),
  limit: queryPageSize(limits.pageSizeDefault),
  cursor: z
    .string()
    .min(1)
    .max(600)
    .meta({ description: 'nextCursor of the previous page, with the same filters and sort' })
    .optional(),
  status: statusList.optional(),
  q: text(issueSearchMaxChars)
    .transform((q, ctx) => {
      const parsed = parseSearch(q);
      if (parsed.ok) return parsed.terms;
      ctx.addIssue({ code: 'custom', message: parsed.message });
      return z.NEVER;
    })
    .meta({
      description:
        'Search in Sentry’s syntax, terms separated by spaces, all to hold: is:unresolved|resolved|ignored|archived|assigned|unassigned ' +
        '(archived = ignored), assigned:me|none|<e-mail>, level:<level>, release:<release>, environment:<environment>, handled:yes|no, ' +
        'error.handled:true|false, error.unhandled:true|false, has:<tag>, <tag>:<value> for any tag (tags[<tag>]:<value> for a tag named ' +
        'like one of these keys). A value may be quoted ("a b"), a list ([a,b]: any of them) or hold * wildcards; ! before a term excludes ' +
        'what it matches. The other words are free text: a case-insensitive substring of the message, errorType or culprit (quote text ' +
        'that holds a colon). A term that cannot be read is a 400 naming it.',
    })
    .optional(),
  type: z.enum(eventTypes).meta({ description: 'The type of the issue’s events' }).optional(),
  release: text(eventFieldChars.release)
    .meta({ description: 'Issues with at least one event of this release' })
    .optional(),
  environment: text(eventFieldChars.environment)
    .meta({ description: 'Issues with at least one event from this environment' })
    .optional(),
  sort: z
    .enum(issueSorts)
    .optional()
    .transform((value) => value ?? 'lastSeen')
    .meta({ description: 'lastSeen (default), firstSeen, events or users; all descending' }),
});

export const ZListIssuesResponseSchema = z.object({
  issues: z.array(
    ZIssueSchema.extend({
      series: z
        .array(
          z.object({
            start: z.int().min(0).meta({ description: 'Start of the UTC day, ms' }),
            events: z.int().min(0),
          }),
        )
        .length(issueListSeriesDays)
        .meta({ description: `Events per UTC day over the last ${issueListSeriesDays} days, oldest first` }),
    }),
  ),
  nextCursor: z.string().nullable(),
  total: z.int().min(0).meta({ description: 'How many issues match the filters, on every page' }),
});
