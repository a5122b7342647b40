// Alerts: what triggers one is written to the outbox (alert_deliveries) by the write statement itself, in the same
// transaction as the events that caused it, so an accepted event's alert survives any crash after the commit, and no
// alert is queued for events that were not committed. A worker in the service delivers the outbox (services/collector).
//   new_issue:  the issue upsert says it created the row;
//   regression: the issue upsert says a resolved issue came back (triage);
//   spike:      events per issue and minute of receipt, kept here only for apps that have a spike rule; a rule fires
//               when its window holds enough events, and alert_spikes lets it fire once per issue per window.
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
  // One row per issue of an app with a spike rule: the app's other issues cost one index probe each.
  part({
    name: 'issue_minute_counts',
    reads: ['issue_additions', 'alert_clock'],
    writes: ['issue_minutes'],
    query: sql`insert into issue_minutes as m (app_key, fingerprint, minute, events)
    select d.app_key, d.fingerprint, c.minute, d.events
    from issue_additions d cross join alert_clock c
    where exists (select from alerts a where a.app_key = d.app_key and a.trigger = 'spike')
    order by 1, 2
    on conflict (app_key, fingerprint, minute) do update set events = m.events + excluded.events
    returning app_key, fingerprint, minute, events`,
  }),
  // This minute's count comes from the upsert (it waited for any writer of the same row, so it is current); earlier
  // minutes from the snapshot. A statement writing the same issue in the minute before, at the same moment, may be
  // missed here; the next event counts it.
  part({
    name: 'spike_windows',
    reads: ['issue_minute_counts'],
    query: sql`select a.id as alert_id, n.fingerprint, a.spike_events, a.spike_minutes,
      n.events + coalesce((select sum(m.events) from issue_minutes m
        where m.app_key = n.app_key and m.fingerprint = n.fingerprint and m.minute > n.minute - a.spike_minutes and m.minute < n.minute), 0) as events
    from issue_minute_counts n
    join alerts a on a.app_key = n.app_key and a.trigger = 'spike'`,
  }),
  // Fires when no alert of this rule for this issue is younger than its window; the upsert decides it on the current
  // row, so statements on the same issue at once fire once.
  part({
    name: 'fired_spikes',
    reads: ['spike_windows', 'alert_clock'],
    writes: ['alert_spikes'],
    query: sql`insert into alert_spikes as f (alert_id, fingerprint, fired_at, window_ms)
    select w.alert_id, w.fingerprint, c.now, w.spike_minutes * ${MINUTE}::int8
    from spike_windows w cross join alert_clock c
    where w.events >= w.spike_events
    order by 1, 2
    on conflict (alert_id, fingerprint) do update set fired_at = excluded.fired_at, window_ms = excluded.window_ms
    where f.fired_at + f.window_ms <= excluded.fired_at
    returning alert_id, fingerprint`,
  }),
  part({
    name: 'spike_alerts',
    reads: ['fired_spikes', 'alert_clock'],
    writes: ['alert_deliveries'],
    query: sql`insert into alert_deliveries (id, alert_id, app_key, fingerprint, trigger, created_at, next_attempt_at)
    select ${newDeliveryId}, a.id, a.app_key, f.fingerprint, 'spike', c.now, c.now
    from fired_spikes f join alerts a on a.id = f.alert_id cross join alert_clock c`,
  }),
];
