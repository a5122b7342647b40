import { findIssue, issueTagCounts } from '@collector/db';
import { parseIssueId } from '@collector/domain';
import { authorizeApp } from '../../auth/authorize';
import { fail } from '../../errors';
import { authedProcedure } from '../../trpc';
import { breakdownTags, CLIENT_TAGS, issueBreakdown } from './breakdown';
import { issueTagsMeta, TAG_VALUES_PER_KEY, ZIssueTagsRequestSchema, ZIssueTagsResponseSchema } from './tags.types';

type Values = Array<{ value: string; events: number }>;

export const issueTagsRoute = authedProcedure
  .meta(issueTagsMeta)
  .input(ZIssueTagsRequestSchema)
  .output(ZIssueTagsResponseSchema)
  .query(async ({ ctx, input }) => {
    const key = parseIssueId(input.id);
    if (!key) fail('NOT_FOUND');
    await authorizeApp(ctx, key.appKey, 'app.read');
    const issue = await findIssue(ctx.db, key);
    if (!issue) fail('NOT_FOUND');
    const [counts, breakdown] = await Promise.all([
      // The client's tags are the breakdown's to read (all their values, to merge with the user agents'): not twice.
      issueTagCounts(ctx.db, key, { perKey: TAG_VALUES_PER_KEY, exceptKeys: CLIENT_TAGS }),
      issueBreakdown(ctx.db, { ...key, firstSeenAt: issue.first_seen_at, lastSeenAt: issue.last_seen_at }),
    ]);
    const byKey = new Map<string, Values>();
    for (const { key: tag, value, events } of counts) {
      const values = byKey.get(tag);
      if (values) values.push({ value, events });
      else byKey.set(tag, [{ value, events }]);
    }
    // Browser and OS (from contexts, else the user agent), runtime, device, release and environment: as the issue's
    // breakdown counts them, so that browser apps, whose SDKs send no browser context, show theirs too.
    for (const [tag, dimension] of Object.entries(breakdownTags)) {
      const values: Values = [];
      for (const { value, events } of breakdown[dimension])
        if (value !== null && values.length < TAG_VALUES_PER_KEY) values.push({ value, events });
      if (values.length > 0) byKey.set(tag, values);
    }
    const tags = [...byKey.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([tag, values]) => ({ key: tag, values }));
    return { tags };
  });
