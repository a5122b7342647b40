// Events over time as stacked bars (errors, failed requests), drawn in SVG: no chart library, no external assets.
import type { Timeseries } from './api';
import { countOf, formatNumber } from './numbers';
import { Table } from './table';

const hourLabel = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const dayLabel = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });
const fullLabel = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

const BAR = 10;
const GAP = 2;
const HEIGHT = 120;

/** `span` says what the buckets cover ("since ..."); by default, as many hours or days as there are buckets. */
export function EventsChart({ series, span: given }: { series: Timeseries; span?: string | undefined }) {
  const { buckets, bucket } = series;
  const label = (start: number) => (bucket === 'hour' ? hourLabel : dayLabel).format(start);
  // The axis top: an even number, so the middle line is a whole number too.
  const peak = Math.max(2, Math.ceil(Math.max(...buckets.map((entry) => entry.events)) / 2) * 2);
  const total = buckets.reduce((sum, entry) => sum + entry.events, 0);
  const scale = (value: number) => (value / peak) * (HEIGHT - 4);
  const width = buckets.length * (BAR + GAP);
  const busiest = buckets.reduce<(typeof buckets)[number] | undefined>(
    (best, entry) => (!best || entry.events > best.events ? entry : best),
    undefined,
  );
  const span = given ?? `in the last ${buckets.length} ${bucket === 'hour' ? 'hours' : 'days'}`;
  const summary =
    total === 0
      ? `No events ${span}.`
      : `${countOf(total, 'event')} ${span}; the busiest ${bucket}, ${busiest ? label(busiest.start) : ''}, had ${formatNumber(busiest?.events ?? 0)}.`;
  const ticks = buckets.length > 0 ? [0, Math.floor((buckets.length - 1) / 2), buckets.length - 1] : [];

  return (
    <figure className="chart">
      <div className="chart-plot">
        <div className="chart-axis" aria-hidden="true">
          <span>{formatNumber(peak)}</span>
          <span>{formatNumber(peak / 2)}</span>
          <span>0</span>
        </div>
        <svg viewBox={`0 0 ${width} ${HEIGHT}`} preserveAspectRatio="none" role="img" aria-label={summary}>
          <line x1="0" x2={width} y1={HEIGHT / 2} y2={HEIGHT / 2} className="chart-grid" />
          <line x1="0" x2={width} y1={HEIGHT - 0.5} y2={HEIGHT - 0.5} className="chart-baseline" />
          {buckets.map((entry, index) => {
            const x = index * (BAR + GAP) + GAP / 2;
            const errors = scale(entry.errors);
            const failed = scale(entry.failedRequests);
            return (
              <g key={entry.start}>
                <title>{`${fullLabel.format(entry.start)}: ${countOf(entry.events, 'event')} (${countOf(entry.errors, 'error')}, ${countOf(entry.failedRequests, 'failed request')})`}</title>
                <rect x={x} width={BAR} y={0} height={HEIGHT} className="chart-hit" />
                {errors > 0 && <rect x={x} width={BAR} y={HEIGHT - errors} height={errors} className="chart-errors" />}
                {failed > 0 && (
                  <rect x={x} width={BAR} y={HEIGHT - errors - failed} height={failed} className="chart-requests" />
                )}
              </g>
            );
          })}
        </svg>
      </div>
      <div className="chart-ticks" aria-hidden="true">
        {ticks.map((index) => {
          const entry = buckets[index];
          return entry ? <span key={index}>{label(entry.start)}</span> : null;
        })}
      </div>
      <figcaption>
        <span className="legend legend-errors">Errors</span>
        <span className="legend legend-requests">Failed requests</span>
        <span className="chart-summary">{summary}</span>
      </figcaption>
      <details className="chart-table">
        <summary>Show as a table</summary>
        <Table columns={[bucket === 'hour' ? 'Hour' : 'Day', 'Events', 'Errors', 'Failed requests']}>
          {buckets.map((entry) => (
            <tr key={entry.start}>
              <td>{fullLabel.format(entry.start)}</td>
              <td className="number">{formatNumber(entry.events)}</td>
              <td className="number">{formatNumber(entry.errors)}</td>
              <td className="number">{formatNumber(entry.failedRequests)}</td>
            </tr>
          ))}
        </Table>
      </details>
    </figure>
  );
}
