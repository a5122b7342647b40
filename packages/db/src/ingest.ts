// The write path: a batch's accepted events and every counter they move, in one transaction.
import { hourlyCounts, issueDeltas, type StoredEvent } from '@collector/domain';
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema';

export interface StoreResult {
  /** Events written by this call. */
  stored: number;
  /** Events whose eventId was already stored (before, or earlier in the same batch). */
  duplicates: number;
}

function byKey<T>(key: (item: T) => string) {
  return (a: T, b: T) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
}

export async function storeEvents(db: Kysely<Database>, appKey: string, events: readonly StoredEvent[], receivedAt: number): Promise<StoreResult> {
  // The first copy of a repeated eventId wins, as it does across batches (ON CONFLICT DO NOTHING).
  const firstCopies = new Map<string, StoredEvent>();
  for (const event of events) if (!firstCopies.has(event.eventId)) firstCopies.set(event.eventId, event);
  // Rows go in key order so that concurrent batches lock index entries in one order and cannot deadlock.
  const unique = [...firstCopies.values()].sort(byKey((event) => event.eventId));
  if (unique.length === 0) return { stored: 0, duplicates: 0 };

  return db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('events')
      .values(
        unique.map((event) => ({
          app_key: appKey,
          event_id: event.eventId,
          fingerprint: event.fingerprint,
          type: event.type,
          timestamp: event.timestamp,
          received_at: receivedAt,
          anonymous_id: event.anonymousId ?? null,
          payload: JSON.stringify(event),
        })),
      )
      .onConflict((oc) => oc.columns(['app_key', 'event_id']).doNothing())
      .returning('event_id')
      .execute();
    const insertedIds = new Set(inserted.map((row) => row.event_id));
    const fresh = unique.filter((event) => insertedIds.has(event.eventId));
    const result = { stored: fresh.length, duplicates: events.length - fresh.length };
    if (fresh.length === 0) return result;

    // New (issue, user) pairs: counted into the issues' user_count below.
    const issueUserPairs = [
      ...new Map(fresh.filter((event) => event.anonymousId).map((event) => [`${event.fingerprint} ${event.anonymousId}`, event])).entries(),
    ]
      .sort(byKey(([key]) => key))
      .map(([, event]) => ({ app_key: appKey, fingerprint: event.fingerprint, anonymous_id: event.anonymousId as string }));
    const newIssueUsers = new Map<string, number>();
    if (issueUserPairs.length > 0) {
      const rows = await trx.insertInto('issue_users').values(issueUserPairs).onConflict((oc) => oc.doNothing()).returning('fingerprint').execute();
      for (const row of rows) newIssueUsers.set(row.fingerprint, (newIssueUsers.get(row.fingerprint) ?? 0) + 1);
    }

    const deltas = issueDeltas(fresh);
    const upserted = await trx
      .insertInto('issues')
      .values(
        deltas.map((delta) => ({
          app_key: appKey,
          fingerprint: delta.fingerprint,
          message: delta.message,
          error_type: delta.errorType,
          event_count: delta.events,
          user_count: newIssueUsers.get(delta.fingerprint) ?? 0,
          first_seen_at: delta.firstSeenAt,
          last_seen_at: delta.lastSeenAt,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['app_key', 'fingerprint']).doUpdateSet({
          event_count: sql`issues.event_count + excluded.event_count`,
          user_count: sql`issues.user_count + excluded.user_count`,
          first_seen_at: sql`least(issues.first_seen_at, excluded.first_seen_at)`,
          last_seen_at: sql`greatest(issues.last_seen_at, excluded.last_seen_at)`,
        }),
      )
      // xmax is 0 only on a row this statement inserted: that is how new issues are told from updated ones.
      .returning(sql<boolean>`xmax = 0`.as('created'))
      .execute();
    const newIssues = upserted.filter((row) => row.created).length;

    const anonymousIds = [...new Set(fresh.flatMap((event) => (event.anonymousId ? [event.anonymousId] : [])))].sort();
    let newUsers = 0;
    if (anonymousIds.length > 0) {
      const rows = await trx
        .insertInto('app_users')
        .values(anonymousIds.map((anonymousId) => ({ app_key: appKey, anonymous_id: anonymousId })))
        .onConflict((oc) => oc.doNothing())
        .returning('anonymous_id')
        .execute();
      newUsers = rows.length;
    }

    const hours = hourlyCounts(fresh);
    await trx
      .insertInto('app_hourly')
      .values(hours.map((hour) => ({ app_key: appKey, hour_start: hour.start, events: hour.events, errors: hour.errors, failed_requests: hour.failedRequests })))
      .onConflict((oc) =>
        oc.columns(['app_key', 'hour_start']).doUpdateSet({
          events: sql`app_hourly.events + excluded.events`,
          errors: sql`app_hourly.errors + excluded.errors`,
          failed_requests: sql`app_hourly.failed_requests + excluded.failed_requests`,
        }),
      )
      .execute();

    const errors = fresh.filter((event) => event.type === 'error').length;
    await trx
      .updateTable('app_totals')
      .set({
        events: sql`events + ${fresh.length}`,
        errors: sql`errors + ${errors}`,
        failed_requests: sql`failed_requests + ${fresh.length - errors}`,
        issues: sql`issues + ${newIssues}`,
        users: sql`users + ${newUsers}`,
      })
      .where('app_key', '=', appKey)
      .execute();
    return result;
  });
}
