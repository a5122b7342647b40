import { findIssue, issueEventContexts, issueTagCounts } from '@collector/db';
import { parseIssueId } from '@collector/domain';
import { authorizeApp } from '../../auth/authorize';
import { fail } from '../../errors';
import { authedProcedure } from '../../trpc';
import { issueTagsMeta, TAG_VALUES_PER_KEY, ZIssueTagsRequestSchema, ZIssueTagsResponseSchema } from './tags.types';

type Values = Array<{ value: string; events: number }>;

/** Release and environment are counted with the issue's breakdown (issue_contexts): their top values as tags. */
function topValues(counts: Iterable<[string | null, number]>): Values {
  const byValue = new Map<string, number>();
  for (const [value, events] of counts) if (value !== null) byValue.set(value, (byValue.get(value) ?? 0) + events);
  return [...byValue.entries()]
    .map(([value, events]) => ({ value, events }))
    .sort((a, b) => b.events - a.events || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
    .slice(0, TAG_VALUES_PER_KEY);
}

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
    const [counts, contexts] = await Promise.all([
      issueTagCounts(ctx.db, key, { perKey: TAG_VALUES_PER_KEY }),
      issueEventContexts(ctx.db, key),
    ]);
    const byKey = new Map<string, Values>();
    for (const { key: tag, value, events } of counts) {
      const values = byKey.get(tag);
      if (values) values.push({ value, events });
      else byKey.set(tag, [{ value, events }]);
    }
    // An event's own tag of that name wins, as for every derived tag.
    for (const [tag, values] of [
      ['release', topValues(contexts.map((context) => [context.release, context.events]))],
      ['environment', topValues(contexts.map((context) => [context.environment, context.events]))],
    ] as const)
      if (values.length > 0 && !byKey.has(tag)) byKey.set(tag, values);
    const tags = [...byKey.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([tag, values]) => ({ key: tag, values }));
    return { tags };
  });
