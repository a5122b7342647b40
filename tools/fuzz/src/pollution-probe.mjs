// Loaded into the server under test (`node --import`): reports any property that appears on a built-in prototype
// while it runs, which is what a prototype-pollution bug looks like from inside. Plain JavaScript so it can load
// before tsx.
import { appendFileSync } from 'node:fs';
import { pollutablePrototypes } from './prototypes.mjs';

const file = process.env.FUZZ_PROBE_FILE;
const names = (prototype) =>
  new Set([...Object.getOwnPropertyNames(prototype), ...Object.getOwnPropertySymbols(prototype).map(String)]);
const baseline = Object.fromEntries(
  Object.entries(pollutablePrototypes).map(([name, prototype]) => [name, names(prototype)]),
);
const reported = new Set();

function check() {
  for (const [name, prototype] of Object.entries(pollutablePrototypes)) {
    for (const key of names(prototype)) {
      if (baseline[name].has(key) || reported.has(`${name}.${key}`)) continue;
      reported.add(`${name}.${key}`);
      const line = JSON.stringify({ prototype: name, key, at: new Date().toISOString() });
      if (file) appendFileSync(file, `${line}\n`);
      else process.stderr.write(`prototype polluted: ${line}\n`);
    }
  }
}

setInterval(check, 100).unref();
process.on('exit', check);
