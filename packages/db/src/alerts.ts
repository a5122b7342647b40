// Alert rules and their deliveries (the outbox the write path fills: see write-path/alerts.ts).
import type {
  Alert,
  AlertChannel,
  AlertDelivery,
  AlertTrigger,
  DeliveryStatus,
  DeliveryTrigger,
} from '@collector/domain';
import { issueId } from '@collector/domain';
import { type Kysely, sql } from 'kysely';
import { liveIssues } from './issues';
import type { AlertDeliveryRow, AlertRow, Database, IssueRow } from './schema';

export function toAlert(row: AlertRow): Alert {
  return {
    id: row.id,
    trigger: row.trigger as AlertTrigger,
    spike:
      row.spike_events !== null && row.spike_minutes !== null
        ? { events: row.spike_events, minutes: row.spike_minutes }
        : null,
    channel: row.channel,
    secret: row.secret,
    createdAt: row.created_at,
  };
}

export function toAlertDelivery(row: AlertDeliveryRow): AlertDelivery {
  return {
    id: row.id,
    alertId: row.alert_id,
    trigger: row.trigger as DeliveryTrigger,
    issueId: row.fingerprint === null ? null : issueId(row.app_key, row.fingerprint),
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    lastError: row.last_error,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
  };
}

export async function insertAlert(db: Kysely<Database>, row: AlertRow): Promise<void> {
  await db
    .insertInto('alerts')
    .values({ ...row, channel: JSON.stringify(row.channel satisfies AlertChannel) })
    .execute();
}

/** An app's rules, oldest first. */
export async function listAlerts(db: Kysely<Database>, appKey: string): Promise<AlertRow[]> {
  return db
    .selectFrom('alerts')
    .selectAll()
    .where('app_key', '=', appKey)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function findAlert(db: Kysely<Database>, appKey: string, id: string): Promise<AlertRow | undefined> {
  return db.selectFrom('alerts').selectAll().where('app_key', '=', appKey).where('id', '=', id).executeTakeFirst();
}

/** Deletes the rule with its deliveries, pending ones included: a deleted rule sends nothing more. */
export async function deleteAlert(db: Kysely<Database>, appKey: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('alerts').where('app_key', '=', appKey).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** An app's deliveries, newest first. */
export async function listAlertDeliveries(
  db: Kysely<Database>,
  appKey: string,
  limit: number,
): Promise<AlertDeliveryRow[]> {
  return db
    .selectFrom('alert_deliveries')
    .selectAll()
    .where('app_key', '=', appKey)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/**
 * A delivery made outside the write path ("send a test"), taken at once by the worker that makes it: its first
 * attempt is counted and leased, as claimDueDeliveries would, so no poller takes it meanwhile.
 */
export async function insertClaimedDelivery(
  db: Kysely<Database>,
  row: {
    id: string;
    alertId: string;
    appKey: string;
    fingerprint: string | null;
    trigger: DeliveryTrigger;
    now: number;
    leasedUntil: number;
  },
): Promise<ClaimedDelivery[]> {
  const inserted = await db
    .insertInto('alert_deliveries')
    .values({
      id: row.id,
      alert_id: row.alertId,
      app_key: row.appKey,
      fingerprint: row.fingerprint,
      trigger: row.trigger,
      attempts: 1,
      created_at: row.now,
      next_attempt_at: row.now,
      delivered_at: null,
      last_error: null,
      leased_until: row.leasedUntil,
    })
    .returningAll()
    .execute();
  return withContext(db, inserted);
}

/** A delivery a worker holds, with what its message needs. */
export interface ClaimedDelivery {
  delivery: AlertDeliveryRow;
  alert: AlertRow;
  app: { appKey: string; name: string };
  /** Null for a test, or if the issue is gone. */
  issue: IssueRow | null;
}

/**
 * Takes up to `max` due deliveries for this worker until `leasedUntil`: rows another worker is taking at the same
 * moment are skipped (SKIP LOCKED), and rows it holds stay its own until their lease ends, so with several collector
 * processes each attempt is made by one. A worker that dies holding a delivery leaves it to be taken again when its
 * lease ends: delivery is at least once.
 */
export async function claimDueDeliveries(
  db: Kysely<Database>,
  options: { now: number; leasedUntil: number; max: number },
): Promise<ClaimedDelivery[]> {
  const { rows: claimed } = await sql<AlertDeliveryRow>`
    update alert_deliveries d set leased_until = ${options.leasedUntil}, attempts = d.attempts + 1
    where d.id in (
      select id from alert_deliveries
      where status = 'pending' and next_attempt_at <= ${options.now} and (leased_until is null or leased_until <= ${options.now})
      order by next_attempt_at limit ${options.max}
      for update skip locked
    )
    returning d.*`.execute(db);
  return withContext(db, claimed);
}

/** The rule, app and issue of each delivery, for its message. */
async function withContext(db: Kysely<Database>, claimed: AlertDeliveryRow[]): Promise<ClaimedDelivery[]> {
  if (claimed.length === 0) return [];
  const alerts = await db
    .selectFrom('alerts')
    .selectAll()
    .where('id', 'in', [...new Set(claimed.map((row) => row.alert_id))])
    .execute();
  const apps = await db
    .selectFrom('apps')
    .select(['app_key', 'name'])
    .where('app_key', 'in', [...new Set(claimed.map((row) => row.app_key))])
    .execute();
  const keys = claimed.filter((row) => row.fingerprint !== null);
  const issues = await liveIssues(
    db,
    keys.map((row) => ({ appKey: row.app_key, fingerprint: row.fingerprint as string })),
  );
  return claimed.flatMap((delivery) => {
    const alert = alerts.find((row) => row.id === delivery.alert_id);
    const app = apps.find((row) => row.app_key === delivery.app_key);
    // The rule was deleted since (with its deliveries): nothing to send.
    if (!alert || !app) return [];
    const issue =
      issues.find((row) => row.app_key === delivery.app_key && row.fingerprint === delivery.fingerprint) ?? null;
    return [{ delivery, alert, app: { appKey: app.app_key, name: app.name }, issue }];
  });
}

/** What one attempt came to: delivered, or not, with the next attempt's time (null: no more attempts, `failed`). */
export type DeliveryAttempt = { id: string; leasedUntil: number } & (
  | { delivered: true; error?: undefined; nextAttemptAt?: undefined }
  | { delivered: false; error: string; nextAttemptAt: number | null }
);

/**
 * Records the attempts of one round of the worker in one statement. Each is recorded only while the worker's lease
 * holds (`leasedUntil`), so a worker whose lease ran out does not overwrite what the worker that took the delivery
 * over records.
 */
export async function recordDeliveryAttempts(
  db: Kysely<Database>,
  now: number,
  attempts: readonly DeliveryAttempt[],
): Promise<void> {
  if (attempts.length === 0) return;
  const rows = JSON.stringify(
    attempts.map((attempt) => ({
      id: attempt.id,
      leased_until: attempt.leasedUntil,
      delivered: attempt.delivered,
      error: attempt.error ?? null,
      next_attempt_at: attempt.nextAttemptAt ?? null,
    })),
  );
  await sql`
    update alert_deliveries d set
      status = case when a.delivered then 'delivered' when a.next_attempt_at is null then 'failed' else 'pending' end,
      delivered_at = case when a.delivered then ${now}::int8 else d.delivered_at end,
      last_error = coalesce(a.error, d.last_error),
      next_attempt_at = coalesce(a.next_attempt_at, d.next_attempt_at),
      leased_until = null
    from jsonb_to_recordset(${rows}::jsonb) as a(id text, leased_until int8, delivered boolean, error text, next_attempt_at int8)
    where d.id = a.id and d.leased_until = a.leased_until`.execute(db);
}

export async function findAlertDelivery(db: Kysely<Database>, id: string): Promise<AlertDeliveryRow | undefined> {
  return db.selectFrom('alert_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Minute counts older than the longest spike window are no longer read. */
export async function pruneIssueMinutes(db: Kysely<Database>, beforeMinute: number): Promise<void> {
  await db.deleteFrom('issue_minutes').where('minute', '<', beforeMinute).execute();
}
