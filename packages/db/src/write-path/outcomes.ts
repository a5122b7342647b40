// Outcomes counted by the statement itself: of the events its batches sent (every copy, per app and UTC hour of
// receipt), those stored now are `accepted`, the rest `duplicate`. Written in the same commit as the events they
// count, so a crash loses neither. The other reasons are counted before any statement (packages/db/src/outcomes.ts).
import { HOUR } from '@collector/domain';
import { sql } from 'kysely';
import { appKeyed } from '../keys';
import type { PreparedBatch } from './batch';
import { part, type StatementPart } from './part';

const hour = sql.lit(HOUR);

/** Events received per app and hour of receipt, every copy counted: the statement's second input. */
export interface ReceivedRow {
  app_key: string;
  hour_start: number;
  events: number;
}

export function receivedRows(batches: readonly PreparedBatch[]): ReceivedRow[] {
  const rows = new Map<string, ReceivedRow>();
  for (const batch of batches) {
    const hourStart = Math.floor(batch.receivedAt / HOUR) * HOUR;
    const key = appKeyed(batch.appKey, hourStart);
    const row = rows.get(key) ?? { app_key: batch.appKey, hour_start: hourStart, events: 0 };
    row.events += batch.sent;
    rows.set(key, row);
  }
  return [...rows.values()];
}

export const outcomeParts: readonly StatementPart[] = [
  part({
    name: 'received_events',
    query: ({ receivedJson }) =>
      sql`select * from jsonb_to_recordset(${receivedJson}::jsonb) as r(app_key text, hour_start int8, events int8)`,
  }),
  part({
    name: 'accepted_by_hour',
    reads: ['received_events', 'new_events'],
    query: sql`select r.app_key, r.hour_start, r.events as received, count(n.event_id) as accepted
    from received_events r left join new_events n on n.app_key = r.app_key and (n.received_at / ${hour}) * ${hour} = r.hour_start
    group by 1, 2, 3`,
  }),
  part({
    name: 'outcome_counts',
    reads: ['accepted_by_hour'],
    writes: ['outcomes_deltas'],
    query: sql`insert into outcomes_deltas (app_key, hour_start, reason, events)
    select app_key, hour_start, reason, events from (
      select app_key, hour_start, 'accepted' as reason, accepted as events from accepted_by_hour
      union all
      select app_key, hour_start, 'duplicate', received - accepted from accepted_by_hour
    ) counted
    where events > 0`,
  }),
];
