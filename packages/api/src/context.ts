// What every procedure sees. `createContextInner` builds it from plain values (tests call it with their own clock,
// as auth/sessions.test.ts does); `createContextFactory` builds it from an HTTP request.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Db } from '@collector/db';
import type { Ingestion } from './ingestion/ingestion';
import type { RateLimiters } from './rate-limiter';

export interface ContextDeps {
  db: Db;
  /** Milliseconds since epoch; injectable so expiry and clamping can be tested. */
  clock: () => number;
  rateLimiters: RateLimiters;
  /** Every event's way in (ingestion/ingestion.ts). */
  ingestion: Ingestion;
  alerts: AlertChannels;
  /** The collector's address as clients reach it (PUBLIC_URL): the base of every app's DSN. A function, because a
   * server on an ephemeral port knows its address only once it listens. */
  publicUrl: () => string;
  /** Who may register, and how account e-mails (invitations, password resets) go out; default open, no e-mail. */
  accounts?: AccountOptions;
  /** Whether answers are checked against their schemas (answer-checks.ts): default strict; the service's is off. */
  answerChecks?: AnswerChecks | undefined;
}

/** Whether API answers are checked against their schemas at run time (answer-checks.ts). */
export type AnswerChecks = 'strict' | 'off';

export type RegistrationMode = 'open' | 'invite' | 'closed';

export interface AccountOptions {
  /** REGISTRATION: open to anyone, by invitation only, or closed (only the very first user registers either way). */
  registration: RegistrationMode;
  /** Sends an account e-mail (through SMTP_URL); undefined without SMTP. Never rejects: the service logs a failure. */
  sendMail?: ((mail: { to: string; subject: string; text: string }) => Promise<void>) | undefined;
}

/** What the alert routes need of the service that delivers alerts (services/collector/src/alerts). */
export interface AlertChannels {
  /** False without SMTP_URL: e-mail alerts cannot be created. */
  emailConfigured: boolean;
  /** Why the service will not post to this URL (a host on a private network...), or undefined when it will. */
  refuseWebhookUrl(url: string): Promise<string | undefined>;
  /** Sends a sample alert through the rule now, records it as a delivery (trigger `test`) and returns its id. */
  sendTest(rule: { alertId: string; appKey: string }): Promise<string>;
}

/** For a context with no service behind it to deliver alerts (tests of other procedures): rules are refused. */
export const noAlertDelivery: AlertChannels = {
  emailConfigured: false,
  refuseWebhookUrl: async () => 'this process delivers no alerts',
  sendTest: async () => {
    throw new Error('this process delivers no alerts');
  },
};

export interface ContextInner extends ContextDeps {
  /** The raw Authorization header, checked only by authed procedures. */
  authorization: string | undefined;
  /** The client's address, for per-address throttling. */
  clientAddress: string;
  /** The request's id (X-Request-Id), for log lines about it. */
  requestId: string;
}

export function createContextInner(inner: ContextInner): ContextInner {
  return inner;
}

/** For Express (`req.ip` honours the trust-proxy setting) and plain node:http alike. */
export function createContextFactory(deps: ContextDeps) {
  return ({
    req,
  }: {
    req: IncomingMessage & { ip?: string | undefined; requestId?: string | undefined };
  }): ContextInner =>
    createContextInner({
      ...deps,
      authorization: req.headers.authorization,
      clientAddress: req.ip ?? req.socket.remoteAddress ?? 'unknown',
      // The service assigns one to every request before routing; a bare node:http caller gets a fresh one.
      requestId: req.requestId ?? randomUUID(),
    });
}

export type Context = ContextInner;
