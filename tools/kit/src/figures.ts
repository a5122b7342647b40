// How the tools print and summarise what they measured.

/** Percentile of a list of numbers (nearest rank); NaN for an empty list. Sorts a copy unless told the list is sorted. */
export function percentile(values: readonly number[], p: number, sorted = false): number {
  if (values.length === 0) return Number.NaN;
  const ordered = sorted ? values : [...values].sort((a, b) => a - b);
  return ordered[Math.min(ordered.length - 1, Math.max(0, Math.ceil((p / 100) * ordered.length) - 1))] as number;
}

/** A figure for a report: fixed digits, or `-` when there is none (NaN, Infinity). */
export const fmt = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
