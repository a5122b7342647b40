// Events from Sentry SDKs (contract, "Sentry SDK compatibility"): the DSN checked, each event mapped by the domain's
// pure mapping, then stored by ingestEvents like a batch's events. The HTTP side (reading envelopes) is the service's.
import { fromSentryEvent, publicKeyPattern } from '@collector/domain';
import { contractError } from './errors';
import { type IngestionContext, ingestEvents } from './ingestion';

export interface SentryIngestion {
  /** From the path: /api/<projectId>/envelope/ or /store/. */
  projectId: string;
  /** The first key found: `sentry_key` in the query, `X-Sentry-Auth`, or the envelope header's `dsn`. */
  publicKey: string | undefined;
  events: ReadonlyArray<{ eventId: string; event: Record<string, unknown> }>;
  /** Envelope items of other types, skipped: counted as the `unsupported` outcome. */
  skippedItems?: number;
}

const unknownDsn = () =>
  contractError('UNKNOWN_APP_KEY', {
    details: [{ path: 'dsn', message: 'no app has this public key and project id' }],
  });

/** The appKey a DSN's project and key name, or 403 UNKNOWN_APP_KEY. */
export async function appKeyForDsn(
  ctx: IngestionContext,
  projectId: string,
  publicKey: string | undefined,
): Promise<string> {
  if (!/^[1-9]\d{0,14}$/.test(projectId) || publicKey === undefined || !publicKeyPattern.test(publicKey))
    throw unknownDsn();
  const project = await ctx.knownApps.project(Number(projectId));
  if (!project || project.publicKey !== publicKey) throw unknownDsn();
  return project.appKey;
}

/**
 * Stores the envelope's event (at most one). The answer's id is the Sentry event_id; an event the collector's rules
 * reject is a 400 VALIDATION_FAILED saying why, since a Sentry SDK has no per-event answer to read.
 */
export async function ingestSentryEvents(ctx: IngestionContext, input: SentryIngestion): Promise<{ id?: string }> {
  const appKey = await appKeyForDsn(ctx, input.projectId, input.publicKey);
  const receivedAt = ctx.clock();
  ctx.outcomes.count(appKey, 'unsupported', input.skippedItems ?? 0, receivedAt);
  if (input.events.length === 0) return {};
  const events = input.events.map(({ eventId, event }) => fromSentryEvent(event, { receivedAt, eventId }));
  const result = await ingestEvents(ctx, { appKey, events, receivedAt });
  const rejection = result.rejected[0];
  if (rejection) throw contractError('VALIDATION_FAILED', { details: [{ path: 'event', message: rejection.message }] });
  return { id: input.events[0]?.eventId };
}
