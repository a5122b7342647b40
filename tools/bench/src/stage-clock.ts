// A stopwatch over the stages of a pass through some work (the bench's cpu and versus tools): each lap adds the time
// since the previous lap, or since the pass started, to its stage's total.

/** Laps into `took` (µs per stage, added to); `start` begins a pass, so what ran between passes is not counted. */
export function stageClock(took: number[]) {
  let t = process.hrtime.bigint();
  return {
    start(): void {
      t = process.hrtime.bigint();
    },
    lap(stage: number): void {
      const now = process.hrtime.bigint();
      took[stage] = (took[stage] ?? 0) + Number(now - t) / 1000;
      t = now;
    },
  };
}
