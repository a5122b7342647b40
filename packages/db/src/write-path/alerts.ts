// Alerts: what triggers one is written to the outbox (alert_deliveries) by the write statement itself, in the same
// transaction as the events that caused it, so an accepted event's alert survives any crash after the commit, and no
// alert is queued for events that were not committed. A worker in the service delivers the outbox (services/collector).
//   new_issue:  the issue insert says it created the row (issues.ts);
//   regression: the update of resolved issues says one came back (triage);
//   spike:      events per issue and minute of receipt, appended here only for apps that have a spike rule; the counter
//               fold (counters.ts) adds them up and fires a rule when its window holds enough events, alert_spikes
//               letting it fire once per issue per window: in the fold's transaction, as committed as the events.
import { sql } from 'kysely';
import { part, type StatementPart } from './part';

const MINUTE = sql.lit(60_000);

const newDeliveryId = sql`'delivery_' || replace(gen_random_uuid()::text, '-', '')`;

export const alertParts: readonly StatementPart[] = [
  // The statement's time: its batches were received within milliseconds of each other.
  part({
    name: 'alert_clock',
    reads: ['sent_events'],
    query: sql`select max(received_at) as now, (max(received_at) / ${MINUTE})::int4 as minute from sent_events`,
  }),
  part({
    name: 'issue_alerts',
    reads: ['stored_issues', 'alert_clock'],
    writes: ['alert_deliveries'],
    query: sql`insert into alert_deliveries (id, alert_id, app_key, fingerprint, trigger, created_at, next_attempt_at)
    select ${newDeliveryId}, a.id, s.app_key, s.fingerprint, a.trigger, c.now, c.now
    from stored_issues s
    join alerts a on a.app_key = s.app_key
      and ((a.trigger = 'new_issue' and s.created) or (a.trigger = 'regression' and s.regressed))
    cross join alert_clock c`,
  }),
  // Events per issue and minute of receipt, for apps with a spike rule only: appended to the counter ledger (no row
  // lock), with the receipt time of the statement. The fold (counters.ts) adds them to issue_minutes and decides the
  // spikes there, one fold at a time.
  part({
    name: 'issue_minute_counts',
    reads: ['issue_additions', 'alert_clock'],
    writes: ['issue_minute_deltas'],
    query: sql`insert into issue_minute_deltas (app_key, fingerprint, minute, events, received_at)
    select d.app_key, d.fingerprint, c.minute, d.events, c.now
    from issue_additions d cross join alert_clock c
    where exists (select from alerts a where a.app_key = d.app_key and a.trigger = 'spike')`,
  }),
];

/**
 * The fold of the per-minute counts (counters.ts runs it, one fold at a time): adds the deltas to issue_minutes, and
 * for each issue it touched, sums the window of each spike rule of its app that ends at the latest minute
 * (issue_minutes as this statement's snapshot has it, which only the fold writes, plus what this fold adds). A rule
 * fires when its window holds enough events and no alert of it for the issue is younger than its window, stamped with
 * the receipt of the latest events.
 */
export const foldSpikes = sql`with moved as (delete from issue_minute_deltas returning *),
  added as (
    select app_key, fingerprint, minute, sum(events)::int4 as events, max(received_at) as received_at
    from moved group by 1, 2, 3
  ),
  counted as (
    insert into issue_minutes as m (app_key, fingerprint, minute, events)
    select a.app_key, a.fingerprint, a.minute, a.events from added a
    where exists (select from apps p where p.app_key = a.app_key)
    order by 1, 2, 3
    on conflict (app_key, fingerprint, minute) do update set events = m.events + excluded.events
  ),
  latest as (
    select distinct on (app_key, fingerprint) app_key, fingerprint, minute, received_at from added
    order by app_key, fingerprint, minute desc
  ),
  windows as (
    select r.id as alert_id, l.fingerprint, r.spike_events, r.spike_minutes, l.received_at,
      coalesce((select sum(m.events) from issue_minutes m where m.app_key = l.app_key and m.fingerprint = l.fingerprint
        and m.minute > l.minute - r.spike_minutes and m.minute <= l.minute), 0)
      + (select sum(a.events) from added a where a.app_key = l.app_key and a.fingerprint = l.fingerprint
        and a.minute > l.minute - r.spike_minutes and a.minute <= l.minute) as events
    from latest l join alerts r on r.app_key = l.app_key and r.trigger = 'spike'
  ),
  fired as (
    insert into alert_spikes as f (alert_id, fingerprint, fired_at, window_ms)
    select w.alert_id, w.fingerprint, w.received_at, w.spike_minutes * ${MINUTE}::int8 from windows w
    where w.events >= w.spike_events
    order by 1, 2
    on conflict (alert_id, fingerprint) do update set fired_at = excluded.fired_at, window_ms = excluded.window_ms
    where f.fired_at + f.window_ms <= excluded.fired_at
    returning alert_id, fingerprint, fired_at
  )
  insert into alert_deliveries (id, alert_id, app_key, fingerprint, trigger, created_at, next_attempt_at)
  select ${newDeliveryId}, r.id, r.app_key, f.fingerprint, 'spike', f.fired_at, f.fired_at
  from fired f join alerts r on r.id = f.alert_id`;
