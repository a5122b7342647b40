// A mapping worker (issue 22): parses source maps with @jridgewell/trace-mapping and maps frames' positions, off the
// main thread's event loop. Parsed maps stay cached here, least recently used first out once their bytes pass the
// bound, so a map is neither sent nor parsed again for each event. Plain JavaScript: a worker thread runs its file
// itself, without the TypeScript loader the tests and `pnpm dev` give the main thread.
//
// Protocol (pool.ts): { id, maps: [{ key, content? }], frames: [{ map, line, column }] } in; out either
// { id, need: [key] } (maps it does not hold and was not given: the main thread reads and sends them), or
// { id, positions: [position | null], failures: [detail] } (null: no position there, or its map failed).
import { parentPort, workerData } from 'node:worker_threads';
import { AnyMap, originalPositionFor, sourceContentFor } from '@jridgewell/trace-mapping';

const { cacheBytes, contextLines, contextLineChars } = workerData;

/** key -> { map, bytes, lines: Map<source, string[]> }, in order of last use. */
const cache = new Map();
let cachedBytes = 0;
const decoder = new TextDecoder();

function remember(key, entry) {
  // A map larger than the whole bound is used once and not kept: it would push every other one out.
  if (entry.bytes > cacheBytes) return;
  cache.set(key, entry);
  cachedBytes += entry.bytes;
  for (const [oldKey, old] of cache) {
    if (cachedBytes <= cacheBytes) break;
    cache.delete(oldKey);
    cachedBytes -= old.bytes;
  }
}

function take(key) {
  const entry = cache.get(key);
  if (entry) {
    cache.delete(key);
    cache.set(key, entry);
  }
  return entry;
}

function parse(content) {
  const text = decoder.decode(content);
  const map = new AnyMap(text);
  // Split sources are kept with the map, so that context lines cost one split per source, not one per frame.
  return { map, bytes: content.byteLength * 3, lines: new Map() };
}

function linesOf(entry, source) {
  let lines = entry.lines.get(source);
  if (lines === undefined) {
    const content = sourceContentFor(entry.map, source);
    lines = content === null ? null : content.split(/\r\n|\r|\n/);
    entry.lines.set(source, lines);
  }
  return lines;
}

const cut = (line) => line.slice(0, contextLineChars);

function position(entry, line, column) {
  // Frames count columns from 1, trace-mapping from 0.
  const found = originalPositionFor(entry.map, { line, column: Math.max(0, column - 1) });
  if (found.source === null || found.line === null) return null;
  const result = { source: found.source, line: found.line, column: (found.column ?? 0) + 1 };
  if (found.name !== null) result.name = found.name;
  const lines = linesOf(entry, found.source);
  if (lines && found.line <= lines.length) {
    const at = found.line - 1;
    result.contextLine = cut(lines[at]);
    result.preContext = lines.slice(Math.max(0, at - contextLines), at).map(cut);
    result.postContext = lines.slice(at + 1, at + 1 + contextLines).map(cut);
  }
  return result;
}

parentPort.on('message', (request) => {
  const { id, maps, frames } = request;
  const need = maps.filter((m) => m.content === undefined && !cache.has(m.key)).map((m) => m.key);
  if (need.length > 0) {
    parentPort.postMessage({ id, need });
    return;
  }
  const entries = [];
  const failures = [];
  for (const m of maps) {
    let entry = take(m.key);
    if (entry === undefined) {
      try {
        entry = parse(m.content);
        remember(m.key, entry);
      } catch (error) {
        failures.push(`${m.key.split('\n')[1]}: ${error instanceof Error ? error.message : String(error)}`);
        entry = null;
      }
    }
    entries.push(entry);
  }
  const positions = frames.map((frame) => {
    const entry = entries[frame.map];
    if (!entry) return null;
    try {
      return position(entry, frame.line, frame.column);
    } catch (error) {
      failures.push(`${error instanceof Error ? error.message : String(error)}`);
      return null;
    }
  });
  parentPort.postMessage({ id, positions, failures });
});
