// The built-in prototypes an attacker would pollute: watched from inside the server (pollution-probe.mjs) and in the
// fuzz run's own process (invariants.ts). Plain JavaScript so the probe can load it before tsx.
export const pollutablePrototypes = {
  Object: Object.prototype,
  Array: Array.prototype,
  Function: Function.prototype,
  String: String.prototype,
  Number: Number.prototype,
  Boolean: Boolean.prototype,
};
