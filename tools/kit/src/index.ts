// What the tools (bench, faults, fuzz, seed, soak) share: flags, the collector as a child process, cleanup on
// signals, seeded random numbers, realistic events, recorded batch answers, plain HTTP requests, and /proc figures.
export * from './cleanup';
export * from './collector';
export * from './events';
export * from './figures';
export * from './flags';
export * from './http';
export * from './ingest';
export * from './process-stats';
export * from './random';
