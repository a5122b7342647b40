// The alert worker: delivers the outbox the write path fills (alert_deliveries). It polls for due deliveries, takes
// some at a time under a lease (SKIP LOCKED, so several collector processes never take the same one), sends them
// outside any transaction (ingestion never waits on a receiver), and records the outcomes as they come in, a group per
// statement: delivered, or failed with the next attempt (first after firstRetryMs, doubling, for 24 hours), or failed
// for good. A slow receiver holds only its own deliveries: polling goes on while up to MAX_IN_FLIGHT are being sent.
import { randomBytes } from 'node:crypto';
import type { AlertChannels } from '@collector/api';
import {
  type ClaimedDelivery,
  claimDueDeliveries,
  type Db,
  type DeliveryAttempt,
  insertClaimedDelivery,
  pruneIssueMinutes,
  recordDeliveryAttempts,
} from '@collector/db';
import { type AlertChannel, nextAttemptAt, spikeLimits } from '@collector/domain';
import type { Logger } from '../logger';
import { alertMessage } from './alert-message';
import { createMailer, type Mailer } from './email';
import { sendWebhook, WEBHOOK_TIMEOUT_MS } from './webhook';
import { webhookUrlRefusal } from './webhook-address';

export interface AlertOptions {
  /** Base of the dashboard links in alerts (PUBLIC_URL); default: the address the server listens on. */
  publicUrl?: string | undefined;
  allowPrivateNetworks: boolean;
  smtpUrl?: string | undefined;
  mailFrom?: string | undefined;
  /** How often the outbox is read for due deliveries. */
  pollMs?: number;
  /** The first retry's delay; each next one doubles it. */
  firstRetryMs?: number;
  /** How long a taken delivery is this worker's; after it (the process died), another worker takes it. */
  leaseMs?: number;
}

export const defaultAlertTiming = { pollMs: 500, firstRetryMs: 5_000, leaseMs: WEBHOOK_TIMEOUT_MS + 20_000 };

/** Deliveries taken per read of the outbox at most, and being sent at once at most. */
const BATCH = 50;
const MAX_IN_FLIGHT = 200;
const MINUTE = 60_000;

export class AlertWorker implements AlertChannels {
  readonly emailConfigured: boolean;
  private readonly mailer: Mailer | undefined;
  private readonly timing: typeof defaultAlertTiming;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private readonly inFlight = new Set<Promise<void>>();
  /** Outcomes waiting to be recorded, and the statement recording the previous ones. */
  private outcomes: DeliveryAttempt[] = [];
  private recording: Promise<void> | undefined;
  private lastPrune = 0;
  private publicUrl = 'http://localhost';

  constructor(
    private readonly db: Db,
    private readonly options: AlertOptions,
    private readonly logger: Logger,
    private readonly clock: () => number = Date.now,
  ) {
    this.emailConfigured = options.smtpUrl !== undefined;
    this.mailer = options.smtpUrl
      ? createMailer(options.smtpUrl, options.mailFrom ?? 'collector@localhost')
      : undefined;
    this.timing = {
      pollMs: options.pollMs ?? defaultAlertTiming.pollMs,
      firstRetryMs: options.firstRetryMs ?? defaultAlertTiming.firstRetryMs,
      leaseMs: options.leaseMs ?? defaultAlertTiming.leaseMs,
    };
  }

  refuseWebhookUrl(url: string): Promise<string | undefined> {
    return webhookUrlRefusal(url, this.options.allowPrivateNetworks);
  }

  /** `listeningUrl` is the dashboard's base in alert links unless PUBLIC_URL says otherwise. */
  start(listeningUrl: string): void {
    this.publicUrl = this.options.publicUrl ?? listeningUrl;
    this.stopped = false;
    this.schedule(0);
  }

  /** Waits for the deliveries in hand; those not yet taken stay in the outbox for the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await Promise.all(this.inFlight);
    while (this.recording) await this.recording;
    this.mailer?.close();
  }

  async sendTest(rule: { alertId: string; appKey: string }): Promise<string> {
    const now = this.clock();
    const leasedUntil = now + this.timing.leaseMs;
    // The shape of the ids the write statement gives deliveries (db write-path/alerts.ts).
    const id = `delivery_${randomBytes(16).toString('hex')}`;
    const claimed = await insertClaimedDelivery(this.db, {
      id,
      ...rule,
      fingerprint: null,
      trigger: 'test',
      now,
      leasedUntil,
    });
    const attempts = await Promise.all(claimed.map((each) => this.attempt(each, leasedUntil)));
    await recordDeliveryAttempts(this.db, this.clock(), attempts);
    return id;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.poll().finally(() => {
        this.running = undefined;
      });
    }, delayMs);
  }

  private async poll(): Promise<void> {
    let full = false;
    try {
      const now = this.clock();
      const leasedUntil = now + this.timing.leaseMs;
      const room = Math.min(BATCH, MAX_IN_FLIGHT - this.inFlight.size);
      const claimed = room > 0 ? await claimDueDeliveries(this.db, { now, leasedUntil, max: room }) : [];
      full = room > 0 && claimed.length === room;
      for (const each of claimed) {
        const sending: Promise<void> = this.attempt(each, leasedUntil).then((outcome) => {
          this.inFlight.delete(sending);
          this.outcomes.push(outcome);
          this.recordOutcomes();
        });
        this.inFlight.add(sending);
      }
      if (now - this.lastPrune >= MINUTE) {
        this.lastPrune = now;
        await pruneIssueMinutes(this.db, Math.floor(now / MINUTE) - spikeLimits.maxMinutes - 1);
      }
    } catch (error) {
      // The database is down or restarting: the outbox is still there when it is back.
      this.logger.warn({ err: error }, 'alerts: reading the outbox failed');
    }
    // A full batch: more may be due at once.
    this.schedule(full ? 0 : this.timing.pollMs);
  }

  /** One statement for the outcomes that came in meanwhile, then the next; never two at once. */
  private recordOutcomes(): void {
    if (this.recording || this.outcomes.length === 0) return;
    const outcomes = this.outcomes;
    this.outcomes = [];
    this.recording = recordDeliveryAttempts(this.db, this.clock(), outcomes)
      .catch((failure: unknown) => {
        // Unrecorded, the attempts are made again when their lease ends: at least once.
        this.logger.warn({ err: failure, deliveries: outcomes.length }, 'alerts: recording deliveries failed');
      })
      .finally(() => {
        this.recording = undefined;
        this.recordOutcomes();
      });
  }

  private async attempt(claimed: ClaimedDelivery, leasedUntil: number): Promise<DeliveryAttempt> {
    const { delivery, alert } = claimed;
    const log = { delivery: delivery.id, alert: alert.id, trigger: delivery.trigger, attempts: delivery.attempts };
    try {
      await this.send(claimed);
      this.logger.info(log, 'alert delivered');
      return { id: delivery.id, leasedUntil, delivered: true };
    } catch (failure) {
      const error = (failure as Error).message.slice(0, 500) || 'failed';
      // A test is tried once: the person who asked for it is waiting for the answer.
      const next =
        delivery.trigger === 'test'
          ? null
          : nextAttemptAt(
              { createdAt: delivery.created_at, attempts: delivery.attempts },
              this.clock(),
              this.timing.firstRetryMs,
            );
      this.logger.warn({ ...log, error, retry: next !== null }, 'alert not delivered');
      return { id: delivery.id, leasedUntil, delivered: false, error, nextAttemptAt: next };
    }
  }

  private async send(claimed: ClaimedDelivery): Promise<void> {
    const message = alertMessage(claimed, this.publicUrl, this.clock());
    const channel = claimed.alert.channel as AlertChannel;
    if (channel.type === 'webhook') {
      await sendWebhook({
        url: channel.url,
        body: message.json,
        secret: claimed.alert.secret,
        deliveryId: claimed.delivery.id,
        allowPrivateNetworks: this.options.allowPrivateNetworks,
      });
    } else {
      if (!this.mailer) throw new Error('e-mail alerts need SMTP_URL, which this collector does not have');
      await this.mailer.send({ to: channel.to, subject: message.subject, text: message.text, html: message.html });
    }
  }
}
