// A row's small chart of events per day (the issue list's last 14 days): bars scaled to the busiest day, read out as
// one sentence, since a screen reader cannot see the shape.
import { formatNumber } from './numbers';

const day = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });

export function Sparkline({ series }: { series: ReadonlyArray<{ start: number; events: number }> }) {
  const most = Math.max(0, ...series.map((entry) => entry.events));
  const total = series.reduce((sum, entry) => sum + entry.events, 0);
  const busiest = series.find((entry) => entry.events === most && most > 0);
  const label =
    `${formatNumber(total)} ${total === 1 ? 'event' : 'events'} in the last ${series.length} days` +
    (busiest ? `, most on ${day.format(busiest.start)} (${formatNumber(most)})` : '');
  const width = series.length * 5;
  return (
    <svg className="sparkline" role="img" aria-label={label} viewBox={`0 0 ${width} 20`} preserveAspectRatio="none">
      <title>{label}</title>
      {series.map((entry, index) => {
        // A day with events is at least 2 units tall, so one event among many still shows.
        const height = entry.events === 0 ? 0.75 : Math.max(2, (entry.events / most) * 20);
        return (
          <rect
            key={entry.start}
            x={index * 5 + 0.5}
            y={20 - height}
            width={4}
            height={height}
            className={entry.events === 0 ? 'spark-empty' : 'spark-bar'}
          />
        );
      })}
    </svg>
  );
}
