// Times as people read them: "5 minutes ago", with the exact time on hover and for screen readers' detail.
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const exact = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

const units: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600_000],
  ['month', 30 * 24 * 3600_000],
  ['week', 7 * 24 * 3600_000],
  ['day', 24 * 3600_000],
  ['hour', 3600_000],
  ['minute', 60_000],
];

function relativeTime(ms: number, now = Date.now()): string {
  const elapsed = ms - now;
  if (Math.abs(elapsed) < 45_000) return 'just now';
  for (const [unit, size] of units) {
    if (Math.abs(elapsed) >= size || unit === 'minute') return relative.format(Math.round(elapsed / size), unit);
  }
  return 'just now';
}

export const exactTime = (ms: number) => exact.format(ms);

export function Time({ ms }: { ms: number }) {
  return (
    <time dateTime={new Date(ms).toISOString()} title={exactTime(ms)}>
      {relativeTime(ms)}
    </time>
  );
}
