// Outcomes: per app and UTC hour of receipt, what happened to the events apps sent (migration 0011). accepted and
// duplicate are counted by the write statement itself (write-path/outcomes.ts), committed with the events they count.
// The other reasons are decided before any statement (a 429, an event judged invalid, a body too large, an envelope
// item skipped, an SDK's client report): OutcomeCounter adds them up in memory and writes them once a second in one
// statement, so a flood of refused requests costs no statement each. A crash loses at most the last second of those counts.
import { everyOutcome, HOUR, type OutcomeCount, type StoredOutcomeReason } from '@collector/domain';
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema';

/** What OutcomeCounter counts: SDK-dropped events are kept per reason the SDK gave (`client_discard:<reason>`). */
export type CountedOutcome = Exclude<StoredOutcomeReason, 'accepted' | 'duplicate' | 'client_discard'>;

interface PendingCount {
  app_key: string;
  hour_start: number;
  reason: CountedOutcome;
  events: number;
}

export class OutcomeCounter {
  private pending = new Map<string, PendingCount>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: { intervalMs?: number; onError?: (error: unknown) => void } = {},
  ) {}

  /** Counts `events` events of `appKey` with this outcome, received at `at` (ms). */
  count(appKey: string, reason: CountedOutcome, events: number, at: number): void {
    if (events <= 0) return;
    const hourStart = Math.floor(at / HOUR) * HOUR;
    const key = `${appKey}\u0000${hourStart}\u0000${reason}`;
    const entry = this.pending.get(key);
    if (entry) entry.events += events;
    else this.pending.set(key, { app_key: appKey, hour_start: hourStart, reason, events });
    this.timer ??= setTimeout(() => void this.flush(), this.options.intervalMs ?? 1_000).unref();
  }

  /** Writes what was counted so far; on failure the counts stay pending for the next flush. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    // One flush at a time: a second waits for the first, then writes what came after it.
    while (this.flushing) await this.flushing;
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    this.flushing = (async () => {
      try {
        await sql`
          insert into outcomes_deltas (app_key, hour_start, reason, events)
          select r.app_key, r.hour_start, r.reason, r.events
          from jsonb_to_recordset(${JSON.stringify(batch)}::jsonb) as r(app_key text, hour_start int8, reason text, events int8)
          -- An app deleted meanwhile has nothing left to count against.
          where exists (select from apps a where a.app_key = r.app_key)`.execute(this.db);
      } catch (error) {
        for (const entry of batch) {
          const key = `${entry.app_key}\u0000${entry.hour_start}\u0000${entry.reason}`;
          const later = this.pending.get(key);
          if (later) later.events += entry.events;
          else this.pending.set(key, entry);
        }
        this.timer ??= setTimeout(() => void this.flush(), this.options.intervalMs ?? 1_000).unref();
        this.options.onError?.(error);
      }
    })();
    try {
      await this.flushing;
    } finally {
      this.flushing = undefined;
    }
  }
}

export interface OutcomeQuery {
  /** One organization's apps, when no appKey names one app (whose access was checked before). */
  orgId?: string | undefined;
  /** Not read: access is decided before (api/src/auth/authorize.ts). Kept so that older callers still compile. */
  userId?: string;
  appKey?: string | undefined;
  /** Inclusive, ms: hours that end after it count. */
  from?: number | undefined;
  /** Exclusive, ms: hours that start before it count. */
  to?: number | undefined;
}

/** Every reason with its count over the caller's apps (or one), for the hours of receipt that overlap [from, to). */
export async function outcomeTotals(db: Kysely<Database>, query: OutcomeQuery): Promise<OutcomeCount[]> {
  const apps = query.appKey === undefined ? sql`a.org_id = ${query.orgId ?? null}` : sql`a.app_key = ${query.appKey}`;
  const from = query.from === undefined ? sql`` : sql`and o.hour_start > ${query.from - HOUR}::int8`;
  const to = query.to === undefined ? sql`` : sql`and o.hour_start < ${query.to}::int8`;
  const { rows } = await sql<{ reason: string; events: number }>`
    select o.reason, sum(o.events)::int8 as events from apps a join outcomes o on o.app_key = a.app_key
    where ${apps} ${from} ${to}
    group by o.reason`.execute(db);
  return everyOutcome(rows);
}
