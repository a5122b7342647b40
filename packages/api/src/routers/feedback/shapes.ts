// The feedback both lists return, and the page they take: one shape, so the issue's list and the app's agree.
import type { FeedbackRow } from '@collector/db';
import { feedbackKinds, issueId, limits } from '@collector/domain';
import { z } from 'zod';
import { queryPageSize } from '../../schemas';

const ZFeedbackSchema = z
  .object({
    id: z.string(),
    kind: z.enum(feedbackKinds).meta({
      description: 'feedback: Sentry’s user feedback item; user_report: its older form, always about an event',
    }),
    name: z.string().nullable(),
    email: z.string().nullable().meta({ description: 'As the user typed it: not checked' }),
    message: z.string().meta({ description: 'Cut to 4 KiB' }),
    url: z.string().nullable().meta({ description: 'The page it was sent from, when the SDK said' }),
    eventId: z.string().nullable().meta({ description: 'The event it is about (evt_<Sentry event_id>), if any' }),
    issueId: z.string().nullable().meta({
      description:
        'That event’s issue, once the event was stored; null for feedback about the app, or whose event has not come',
    }),
    receivedAt: z.int().min(0),
  })
  .meta({ id: 'Feedback' });

export const ZFeedbackPageRequest = {
  limit: queryPageSize(limits.pageSizeDefault),
  cursor: z
    .string()
    .regex(/^\d{1,18}$/, 'is not a cursor this service issued')
    .optional(),
};

export const ZFeedbackPageResponseSchema = z.object({
  feedback: z.array(ZFeedbackSchema),
  nextCursor: z.string().nullable(),
});

/**
 * A page of rows (up to limit + 1, newest first) as the API returns it. `fingerprint`: the issue's, for rows found by
 * their event (not yet linked).
 */
export function feedbackPage(appKey: string, rows: readonly FeedbackRow[], limit: number, fingerprint?: string) {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    feedback: page.map((row) => {
      const linked = row.fingerprint ?? fingerprint ?? null;
      return {
        id: String(row.id),
        kind: row.kind as (typeof feedbackKinds)[number],
        name: row.name,
        email: row.email,
        message: row.message,
        url: row.url,
        eventId: row.event_id,
        issueId: linked === null ? null : issueId(appKey, linked),
        receivedAt: row.received_at,
      };
    }),
    nextCursor: rows.length > limit && last ? String(last.id) : null,
  };
}
