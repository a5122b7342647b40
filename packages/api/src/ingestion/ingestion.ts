// The one owner of an event's trip in: admission (the budget of bytes in flight), the key a request names (an
// appKey, or a Sentry DSN from the URL, the X-Sentry-Auth header or the envelope header), the app's rate limit,
// judging (bounds, fingerprint, timestamp clamp), the group-committing writer, and every outcome. The batch route,
// the Sentry routes and the tRPC procedure only parse their wire format, call `Ingestion`, and report its answer.
// Outcomes: rate_limited, invalid, unsupported and too_large are counted here; accepted and duplicate by the write
// statement, in the commit of the events they count (packages/db/src/write-path/outcomes.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventWriter, OutcomeCounter, StoreResult } from '@collector/db';
import {
  type ClientDiscard,
  clientDiscardOutcome,
  type FeedbackInput,
  fromSentryEvent,
  judgeEvent,
  publicKeyPattern,
  type StoredEvent,
} from '@collector/domain';
import { contractError } from '../errors';
import type { KnownApps } from '../known-apps';
import type { LeasedRateLimiter } from '../rate-limiter';
import type { Symbolicator } from '../symbolication/symbolicator';
import type { IngestBudget } from './budget';

/** The key a request names, as its wire format carries it. */
export type IngestKey = { appKey: string } | { projectId: string; publicKey: string | undefined };

const CHECKED = Symbol('app key checked');

/** An app whose key was checked: `ingest` takes one without a second look-up. */
export interface CheckedApp {
  readonly appKey: string;
  readonly [CHECKED]: true;
}

/** A Sentry event as its envelope or store body carried it: mapped to the collector's event by the domain. */
export interface SentryItem {
  eventId: string;
  event: Record<string, unknown>;
  /** The request's `sentry_client` (`raven-js/3.22.1`), when it named one. */
  client?: string;
}

export type Delivery =
  /** The batch endpoint's and the typed client's events, judged as they are. */
  | { format: 'batch'; events: readonly unknown[] }
  /**
   * A Sentry envelope's or store body's events (at most one), its feedback, what its client reports say the SDK
   * dropped, and the number of its items skipped (other types, or feedback and reports that could not be read).
   */
  | {
      format: 'sentry';
      events: readonly SentryItem[];
      skippedItems: number;
      feedback: readonly FeedbackInput[];
      clientDiscards: readonly ClientDiscard[];
    };

interface Rejection {
  index: number;
  eventId?: string;
  code: 'VALIDATION_FAILED';
  message: string;
}

export interface IngestionResult {
  /** Events now stored, including ones stored before under the same eventId. */
  accepted: number;
  duplicates: number;
  rejected: Rejection[];
}

export interface IngestionDeps {
  knownApps: KnownApps;
  /** Events per second per app; null when the limit is off. */
  rateLimiter: LeasedRateLimiter | null;
  writer: EventWriter;
  /** Outcomes decided before the write statement, written once a second. */
  outcomes: OutcomeCounter;
  budget: IngestBudget;
  /** Stores an app's feedback, committed before it resolves (packages/db/src/feedback.ts). */
  storeFeedback: (appKey: string, items: readonly FeedbackInput[], receivedAt: number) => Promise<void>;
  clock: () => number;
  /** STORE_IP: false drops the user's `ip_address` before anything is stored; default true. */
  storeIp?: boolean;
  /** Source maps applied between judging and writing (issue 22); none: events are stored as sent. */
  symbolicator?: Symbolicator | undefined;
}

const unknownDsn = () =>
  contractError('UNKNOWN_APP_KEY', {
    details: [{ path: 'dsn', message: 'no app has this public key and project id' }],
  });

/**
 * The answer once the write commits. Its own function, not a closure in judgeAndWrite: V8 keeps one context for all of
 * a function's closures, so a callback written there would hold the judged events (which `write` reads) until the
 * commit, and under load they would outlive young-generation collections and be copied into the old generation.
 */
function answer(writing: Promise<StoreResult>, accepted: number, rejected: Rejection[]): Promise<IngestionResult> {
  return writing.then(({ duplicates }) => ({ accepted, duplicates, rejected }));
}

export class Ingestion {
  constructor(private readonly deps: IngestionDeps) {}

  /** The one answer to a request the budget refuses (503 with Retry-After). */
  get refusal() {
    return this.deps.budget.refusal;
  }

  /**
   * Reserves what a body may cost before it is read (`maxBodyBytes`: the most the adapter's reader holds of one).
   * False when the budget is full: answer `refusal` without reading the body.
   */
  admit(req: IncomingMessage, res: ServerResponse, maxBodyBytes: number): boolean {
    return this.deps.budget.admit(req, res, maxBodyBytes);
  }

  /** Lowers a request's reservation to what its body turned out to hold once read. */
  settle(res: ServerResponse, bytes: number): void {
    this.deps.budget.settle(res, bytes);
  }

  /** The app a key names, or 403 UNKNOWN_APP_KEY. */
  async check(key: IngestKey | CheckedApp): Promise<CheckedApp> {
    if (CHECKED in key) return key;
    if ('appKey' in key) {
      if (!(await this.deps.knownApps.exists(key.appKey))) throw contractError('UNKNOWN_APP_KEY');
      return { appKey: key.appKey, [CHECKED]: true };
    }
    const { projectId, publicKey } = key;
    if (!/^[1-9]\d{0,14}$/.test(projectId) || publicKey === undefined || !publicKeyPattern.test(publicKey)) {
      throw unknownDsn();
    }
    const project = await this.deps.knownApps.project(Number(projectId));
    if (!project || project.publicKey !== publicKey) throw unknownDsn();
    return { appKey: project.appKey, [CHECKED]: true };
  }

  /**
   * A body refused as too large counts as one too_large event of the app its key names, if that app exists: a made-up
   * key is not kept even for a second. Never throws (the request is answered 413 whatever this finds).
   */
  tooLarge(key: IngestKey | CheckedApp | undefined): void {
    if (key === undefined) return;
    const at = this.deps.clock();
    this.check(key).then(
      (app) => this.deps.outcomes.count(app.appKey, 'too_large', 1, at),
      () => undefined,
    );
  }

  /**
   * Judges each event on its own and stores the accepted ones, committed before this resolves. Throws (as the
   * contract's errors) when the whole request fails: an unknown app (403), its rate limit (429), the database (503).
   */
  async ingest(key: IngestKey | CheckedApp, delivery: Delivery): Promise<IngestionResult> {
    const { appKey } = await this.check(key);
    const { outcomes } = this.deps;
    const receivedAt = this.deps.clock();
    const feedback = delivery.format === 'sentry' ? delivery.feedback : [];
    if (delivery.format === 'sentry') {
      outcomes.count(appKey, 'unsupported', delivery.skippedItems, receivedAt);
      for (const { reason, quantity } of delivery.clientDiscards)
        outcomes.count(appKey, clientDiscardOutcome(reason), quantity, receivedAt);
    }
    const sent = delivery.events.length;
    if (sent === 0 && feedback.length === 0) return { accepted: 0, duplicates: 0, rejected: [] };
    try {
      // Feedback counts against the limit like an event: storing one may read its event's day (db/feedback.ts).
      await this.deps.rateLimiter?.take(appKey, sent + feedback.length, receivedAt);
    } catch (error) {
      outcomes.count(appKey, 'rate_limited', sent, receivedAt);
      throw error;
    }
    const written =
      sent === 0
        ? Promise.resolve({ accepted: 0, duplicates: 0, rejected: [] })
        : this.judgeAndWrite(appKey, delivery, receivedAt);
    if (feedback.length === 0) return written;
    // After the events: a feedback about an event of the same envelope then finds it stored, and is linked at once.
    return written.then((result) => this.deps.storeFeedback(appKey, feedback, receivedAt).then(() => result));
  }

  /**
   * Not async on purpose: the delivery, its mapped and judged events are garbage once the writer has serialised them,
   * so nothing here is kept alive while the request waits for its group's commit (hundreds wait at once under load).
   * Only events that source maps may apply to wait first, held until symbolication ends (its time limit bounds it).
   */
  private judgeAndWrite(appKey: string, delivery: Delivery, receivedAt: number): Promise<IngestionResult> {
    const accepted: StoredEvent[] = [];
    const rejected: Rejection[] = [];
    // A Sentry event is mapped to the collector's event, then judged like any.
    const raws: readonly unknown[] =
      delivery.format === 'sentry'
        ? delivery.events.map(({ eventId, event, client }) => fromSentryEvent(event, { receivedAt, eventId, client }))
        : delivery.events;
    const judging = { appKey, receivedAt, source: delivery.format, storeIp: this.deps.storeIp ?? true };
    for (const [index, raw] of raws.entries()) {
      const verdict = judgeEvent(raw, judging);
      if (verdict.ok) accepted.push(verdict.event);
      else
        rejected.push({
          index,
          ...(verdict.eventId ? { eventId: verdict.eventId } : {}),
          code: 'VALIDATION_FAILED',
          message: verdict.message,
        });
    }
    this.deps.outcomes.count(appKey, 'invalid', rejected.length, receivedAt);

    // The writer serialises the events at once; only their count is needed after the commit, so they can die young.
    const write = () =>
      answer(this.deps.writer.write({ appKey, events: accepted, receivedAt }), accepted.length, rejected);
    // Source maps first, for the events one may apply to: undefined (no wait at all) for every other event.
    const symbolicating = this.deps.symbolicator?.prepare(appKey, accepted);
    return symbolicating === undefined ? write() : symbolicating.then(write);
  }

  /** Events about to be shown: maps those stored unmapped whose map has arrived since (no regrouping). */
  async present<T extends StoredEvent>(appKey: string, events: T[]): Promise<T[]> {
    await this.deps.symbolicator?.present(appKey, events);
    return events;
  }
}
