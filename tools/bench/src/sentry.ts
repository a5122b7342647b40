// `pnpm bench --sentry`: events per second through the Sentry endpoints against the batch endpoint, one collector,
// same run, alternating rounds. Three kinds of traffic, the same events underneath (the bench's event source):
//   batch     POST /api/events/batch, 50 events a request (what the collector's own SDK sends)
//   envelope  POST /api/<project>/envelope/, one SDK-shaped event a request, as @sentry/browser and @sentry/node send
//   store     POST /api/<project>/store/, one event a request, gzipped, with X-Sentry-Auth, as python sentry-sdk 1.x sends
// Target (issue "Sentry SDKs report here unmodified"): envelope and store >= 0.8x the batch endpoint per event.
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { createAccountWithAppRecords, type EventSource } from '@collector/tool-kit';
import type autocannon from 'autocannon';
import { closedLoop, roundFigures } from './load';

interface CollectorEvent {
  eventId: string;
  type: 'error' | 'request';
  timestamp: number;
  anonymousId?: string;
  errorType?: string;
  message?: string;
  stack?: string;
  url?: string;
  userAgent?: string;
  release?: string;
  environment?: string;
  request?: { method: string; url: string; status?: number };
  breadcrumbs?: Array<{ timestamp?: number; category?: string; message?: string; level?: string; data?: unknown }>;
}

/** "    at fn (file:line:col)" lines as Sentry frames, outermost first as Sentry lists them. */
function framesOf(stack: string | undefined) {
  const frames = [];
  for (const line of (stack ?? '').split('\n').slice(1)) {
    const match = /^\s*at (.*) \((.*):(\d+):(\d+)\)$/.exec(line);
    if (match)
      frames.push({
        function: match[1],
        filename: match[2],
        lineno: Number(match[3]),
        colno: Number(match[4]),
        in_app: !match[2]?.includes('vendor'),
      });
  }
  return frames.reverse();
}

/** The SDK the bench's Sentry events claim to come from. */
export const browserSdk = { name: 'sentry.javascript.browser', version: '11.12.0' } as const;

const envelopeSdk = JSON.stringify(browserSdk);

/** An envelope of one event, as @sentry/browser posts it to /envelope/. */
export const envelopeBody = (event: Record<string, unknown>): string =>
  `{"event_id":"${event.event_id}","sent_at":"${new Date().toISOString()}","sdk":${envelopeSdk}}\n{"type":"event"}\n${JSON.stringify(event)}\n`;

/** The same event as @sentry/browser 11 would send it (fields it always sends included: sdk, contexts, request). */
function asSentryEvent(event: CollectorEvent): Record<string, unknown> {
  const isRequest = event.type === 'request' && event.request;
  return {
    event_id: event.eventId.slice(4).replace(/[^0-9a-zA-Z]/g, ''),
    timestamp: event.timestamp / 1000,
    platform: 'javascript',
    level: 'error',
    release: event.release,
    environment: event.environment,
    sdk: {
      ...browserSdk,
      integrations: [
        'InboundFilters',
        'FunctionToString',
        'BrowserApiErrors',
        'Breadcrumbs',
        'GlobalHandlers',
        'LinkedErrors',
        'Dedupe',
        'HttpContext',
        'HttpClient',
      ],
    },
    user: event.anonymousId ? { id: event.anonymousId.slice(5) } : undefined,
    exception: {
      values: [
        {
          type: isRequest ? 'Error' : (event.errorType ?? 'Error'),
          value: isRequest
            ? `HTTP Client Error with status code: ${event.request?.status ?? 0}`
            : (event.message ?? ''),
          stacktrace: { frames: framesOf(event.stack) },
          mechanism: {
            type: isRequest ? 'auto.http.client.fetch' : 'auto.browser.global_handlers.onerror',
            handled: false,
          },
        },
      ],
    },
    request: isRequest
      ? { method: event.request?.method, url: event.request?.url, headers: { 'User-Agent': event.userAgent } }
      : { url: event.url, headers: { 'User-Agent': event.userAgent } },
    contexts: {
      trace: { trace_id: '0'.repeat(32), span_id: '0'.repeat(16) },
      ...(isRequest ? { response: { status_code: event.request?.status } } : {}),
    },
    breadcrumbs: (event.breadcrumbs ?? []).map((crumb) => ({
      ...crumb,
      timestamp: (crumb.timestamp ?? event.timestamp) / 1000,
    })),
  };
}

/** Sentry-shaped events drawn from the bench's source: a batch at a time, handed out one by one. */
export function sentryEventSource(source: EventSource) {
  let queue: Record<string, unknown>[] = [];
  return () => {
    if (queue.length === 0)
      queue = (JSON.parse(source.batch('app_sentry')).events as CollectorEvent[]).map(asSentryEvent);
    return queue.pop() as Record<string, unknown>;
  };
}

export type SentryKind = 'envelope' | 'store';

export interface SentryTarget {
  origin: string;
  projectId: string;
  publicKey: string;
}

export interface SentryTally {
  requests: number;
  accepted: number;
  non2xx: number;
  statuses: Record<string, number>;
  samples: string[];
}

export const emptySentryTally = (): SentryTally => ({ requests: 0, accepted: 0, non2xx: 0, statuses: {}, samples: [] });

// Envelopes drawn before a round. Building each from the event source during the round (a batch generated, parsed,
// mapped, serialised again) cost the load generator ~30 µs more an envelope event (87-90 against 57-62 µs in all),
// on the machine the collector runs on.
const ENVELOPE_TEMPLATES = 4096;
const ID_SLOT = 'f'.repeat(32);

/**
 * Envelope bodies of `count` events drawn now; each call gives the next of them with an event id new to this round
 * (the collector would take a repeated id for a duplicate), so the load generator's work a request is a string join.
 */
function envelopeBodies(next: () => Record<string, unknown>, count: number): () => string {
  const templates = Array.from({ length: count }, () => envelopeBody({ ...next(), event_id: ID_SLOT }).split(ID_SLOT));
  const round = randomBytes(8).toString('hex');
  let sent = 0;
  return () => {
    const id = round + (sent++).toString(16).padStart(16, '0');
    return (templates[sent % count] as string[]).join(id);
  };
}

/** One request per event, as SDKs send: a closed loop over `connections`, every answer counted. */
export async function sentryRound(
  kind: SentryKind,
  target: SentryTarget,
  next: () => Record<string, unknown>,
  tally: SentryTally,
  options: { connections: number; seconds: number },
) {
  const before = { ...tally };
  const nextEnvelope = kind === 'envelope' ? envelopeBodies(next, ENVELOPE_TEMPLATES) : () => '';
  const auth = `Sentry sentry_version=7, sentry_client=sentry.python/1.9.10, sentry_key=${target.publicKey}`;
  const request =
    kind === 'envelope'
      ? {
          method: 'POST' as const,
          path: `/api/${target.projectId}/envelope/?sentry_key=${target.publicKey}&sentry_version=7&sentry_client=${encodeURIComponent(`${browserSdk.name}/${browserSdk.version}`)}`,
          headers: { 'content-type': 'text/plain;charset=UTF-8' },
          setupRequest: (req: autocannon.Request) => ({ ...req, body: nextEnvelope() }),
        }
      : {
          method: 'POST' as const,
          path: `/api/${target.projectId}/store/`,
          headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'x-sentry-auth': auth },
          setupRequest: (req: autocannon.Request) => ({
            ...req,
            body: gzipSync(JSON.stringify(next())) as unknown as string,
          }),
        };
  const run = await closedLoop(
    {
      url: target.origin,
      connections: options.connections,
      duration: options.seconds + 65,
      timeout: 30,
      requests: [
        {
          ...request,
          onResponse: (status: number, body: string) => {
            tally.requests++;
            tally.statuses[status] = (tally.statuses[status] ?? 0) + 1;
            if (status === 200 && body.startsWith('{"id"')) tally.accepted++;
            else if (status < 200 || status > 299) {
              tally.non2xx++;
              if (tally.samples.length < 5) tally.samples.push(`${status} ${body.slice(0, 300)}`);
            }
          },
        },
      ],
    },
    options.seconds,
  );
  return roundFigures(tally, before, run.latencies, run.seconds, run.errors);
}

/** The first app's DSN on a running collector, by its API: register, create a web app, read app.dsn. */
export async function createSentryApp(origin: string): Promise<SentryTarget & { appKey: string }> {
  const [app] = await createAccountWithAppRecords(origin, ['Bench Sentry']);
  if (!app) throw new Error('no app was created');
  const dsn = new URL(app.dsn);
  return { origin, appKey: app.appKey, projectId: dsn.pathname.split('/').at(-1) as string, publicKey: dsn.username };
}
