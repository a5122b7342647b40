// "What was dropped and why": per reason, the events the collector received for all apps or one over the overview's
// period, as horizontal bars (drawn with CSS: no chart library). Its own component, so the overview only places it.
import { client, type Outcome } from './api';
import { countOf, formatNumber } from './numbers';
import { useQuery } from './query';
import { QueryStatus } from './states';

// The API lists every reason, in its order; these say what each means.
const labels: Record<Outcome['reason'], { label: string; why: string }> = {
  accepted: { label: 'Accepted', why: 'new events stored' },
  duplicate: { label: 'Duplicates', why: 'retries of events already received: stored once' },
  invalid: { label: 'Invalid', why: 'events rejected one by one (see the batch answer’s rejected list)' },
  rate_limited: { label: 'Rate limited', why: 'events of requests refused with 429: over INGEST_RATE_LIMIT' },
  too_large: { label: 'Too large', why: 'requests refused with 413 (over 1 MiB), one per request' },
  unsupported: { label: 'Unsupported', why: 'envelope items this collector skips' },
  client_discard: {
    label: 'Dropped by the SDK',
    why: 'error events the apps’ Sentry SDKs dropped before sending them',
  },
};

/**
 * The outcomes of one app (or all) received from `from` on (all of them without it), the page's period, which `span`
 * words ("since ..."); refreshed when `refreshKey` changes.
 */
export function OutcomesPanel({
  appKey,
  org,
  from,
  span,
  refreshKey,
}: {
  appKey: string | undefined;
  org?: string | undefined;
  from: number | undefined;
  span: string;
  refreshKey: number;
}) {
  const outcomes = useQuery(
    async () => (await client.outcomes.get.query({ appKey, org, ...(from !== undefined ? { from } : {}) })).outcomes,
    [appKey, org, from, refreshKey],
  );
  const list = outcomes.data ?? [];
  const countOfReason = (reason: Outcome['reason']) => list.find((outcome) => outcome.reason === reason)?.events ?? 0;
  // What SDKs dropped never reached the collector: shown as its own bar, not counted as received.
  const received = list.reduce((sum, outcome) => sum + (outcome.reason === 'client_discard' ? 0 : outcome.events), 0);
  const dropped = received - countOfReason('accepted') - countOfReason('duplicate');
  const peak = Math.max(1, ...list.map((outcome) => outcome.events));
  const summary =
    received === 0
      ? 'Nothing received in this period.'
      : `${countOf(received, 'event')} received; ${formatNumber(dropped)} dropped (${((dropped / received) * 100).toFixed(1)}%).`;

  return (
    <section className="panel" aria-labelledby="outcomes-title">
      <div className="panel-head">
        <h2 id="outcomes-title">What was dropped and why</h2>
        <span className="muted" data-outcomes-span>
          {span}
        </span>
      </div>
      <QueryStatus query={outcomes} failure="Could not load the outcomes" />
      {outcomes.data && (
        <figure className="outcomes" aria-busy={outcomes.status === 'loading'}>
          <dl>
            {list.map(({ reason, events }) => (
              <div
                key={reason}
                className={`outcome outcome-${reason}`}
                data-outcome={reason}
                title={labels[reason].why}
              >
                <dt>{labels[reason].label}</dt>
                <dd>
                  <span className="outcome-bar" style={{ width: `${(events / peak) * 100}%` }} aria-hidden="true" />
                  <span className="outcome-count">{formatNumber(events)}</span>
                </dd>
              </div>
            ))}
          </dl>
          <figcaption className="chart-summary">
            {summary} Counted by the hour the collector received them; kept after the events are deleted.
          </figcaption>
        </figure>
      )}
    </section>
  );
}
