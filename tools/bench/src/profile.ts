// Reads a V8 .cpuprofile (node --cpu-prof) and says where the CPU went: self time by package, the top functions,
// and a partition of the samples over the steps of the ingestion path.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/**
 * The collector runs as one esbuild bundle (dist/main.mjs), so every frame would name that file: frames of a script
 * with a source map beside it are given their original file, line and name, which the owners below match on.
 */
function resolveSources(nodes: ProfileNode[]): void {
  const maps = new Map<string, SourceMap | null>();
  const mapOf = (url: string) => {
    if (!maps.has(url)) {
      const file = url.startsWith('file://') ? fileURLToPath(url) : undefined;
      const path = file && `${file}.map`;
      maps.set(url, path && existsSync(path) ? new SourceMap(JSON.parse(readFileSync(path, 'utf8'))) : null);
    }
    return maps.get(url);
  };
  for (const node of nodes) {
    const frame = node.callFrame;
    if (!frame.url.endsWith('.mjs') || frame.lineNumber < 0) continue;
    const map = mapOf(frame.url);
    const entry = map?.findEntry(frame.lineNumber, frame.columnNumber) as
      | { originalSource?: string; originalLine?: number; originalColumn?: number; name?: string }
      | undefined;
    if (!entry?.originalSource) continue;
    node.callFrame = {
      functionName: frame.functionName || entry.name || '',
      // Sources are named relative to the map; absolute, they read as the unbundled files' URLs do.
      url: entry.originalSource.startsWith('file:')
        ? entry.originalSource
        : pathToFileURL(resolve(dirname(fileURLToPath(frame.url)), entry.originalSource)).href,
      lineNumber: entry.originalLine ?? 0,
      columnNumber: entry.originalColumn ?? 0,
    };
  }
}

/** On-CPU milliseconds of a profile: to tell the main thread's profile from the module loader thread's. */
function busyMs(file: string): number {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const idle = new Set(profile.nodes.filter((node) => node.callFrame.functionName === '(idle)').map((node) => node.id));
  return profile.samples.reduce((sum, id, i) => sum + (idle.has(id) ? 0 : (profile.timeDeltas[i] ?? 0) / 1000), 0);
}

/**
 * The profile of a process's main thread among those `--cpu-prof-dir` holds (one per thread): the busiest one (another
 * is tsx's module loader, in the baseline); undefined when there is none.
 */
export function mainThreadProfile(dir: string): string | undefined {
  // Each profile read once (they run to tens of MB), not once per comparison of the sort.
  return readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => ({ file: join(dir, f), busy: busyMs(join(dir, f)) }))
    .sort((a, b) => b.busy - a.busy)[0]?.file;
}

/** Which package a script belongs to: a node_modules package, a workspace package, node itself, or V8's own buckets. */
function packageOf(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (!url) {
    if (functionName === '(garbage collector)') return '(gc)';
    if (functionName === '(idle)') return '(idle)';
    if (functionName === '(program)') return '(program: V8/native, unattributed)';
    return `(native ${functionName || 'anonymous'})`;
  }
  if (url.startsWith('node:')) {
    const path = url.slice(5).replace(/^internal\//, '');
    if (/^(_http|http|net|stream|streams\/|timers|zlib)/.test(path)) return 'node: http/net/streams';
    return `node: ${path.split('/')[0]}`;
  }
  const modules = /node_modules\/(@[^/]+\/[^/]+|[^/]+)\//g;
  let last: string | undefined;
  for (let match = modules.exec(url); match; match = modules.exec(url)) last = match[1];
  if (last) return last;
  const workspace = /\/(packages|services|tools)\/([^/]+)\//.exec(url);
  if (workspace) return `@collector/${workspace[2]}`;
  return url;
}

type Frame = ProfileNode['callFrame'];
const SOCKET_WRITES = 'socket writes: writev etc. (kernel time)';
/**
 * Who a sample's time belongs to: the innermost frame on its stack from one of these places (builtins such as
 * JSON.stringify show up as their caller, as V8 records them). So the shares add up to 100%.
 */
const OWNERS: [string, (frame: Frame) => boolean][] = [
  ['pg, pg-protocol, pg-pool', (f) => /\/node_modules\/pg(-protocol|-pool|-types)?\//.test(f.url)],
  ['kysely: building and compiling queries', (f) => f.url.includes('/node_modules/kysely/')],
  [
    'body-parser: reading, inflating, JSON.parse',
    (f) => /\/node_modules\/(body-parser|raw-body|iconv-lite)\//.test(f.url),
  ],
  [
    'tRPC + trpc-to-openapi (incl. their JSON work)',
    (f) => /\/node_modules\/(@trpc\/server|trpc-to-openapi)\//.test(f.url),
  ],
  ['express + router', (f) => /\/node_modules\/(express|router)\//.test(f.url)],
  ['zod', (f) => f.url.includes('/node_modules/zod/')],
  [
    '@collector/db write path (ingest.ts, write-path/: row mapping, JSON.stringify of payloads, sorts)',
    (f) => /\/packages\/db\/src\/(ingest\.ts|write-path\/)/.test(f.url),
  ],
  ['@collector/domain', (f) => /\/packages\/domain\//.test(f.url)],
  ['other workspace code (api, service, bench)', (f) => /\/(packages|services|tools)\//.test(f.url)],
  [
    'node http/net/streams',
    (f) => /^node:(_http|http|net|stream|internal\/(http|net|streams|stream_base))/.test(f.url),
  ],
];
/** Event validation, wherever its time went (zod or domain code): named by the function on the stack. */
const NAMED: [string, string][] = [
  ['computeFingerprint', 'domain: computeFingerprint'],
  ['judgeEvent', 'domain: judgeEvent without the fingerprint (zod event schema, nesting check, copies)'],
];

function stepOf(leaf: number, byId: Map<number, ProfileNode>, parent: Map<number, number>): string {
  const leafFrame = byId.get(leaf)?.callFrame;
  if (leafFrame?.functionName === '(garbage collector)') return '(gc)';
  if (
    leafFrame &&
    leafFrame.url === '' &&
    /^(writev|writeBuffer|writeUtf8String|writeLatin1String)$/.test(leafFrame.functionName)
  )
    return SOCKET_WRITES;
  let owner: string | undefined;
  const names = new Set<string>();
  for (let id: number | undefined = leaf; id !== undefined; id = parent.get(id)) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    names.add(frame.functionName);
    owner ??= OWNERS.find(([, matches]) => matches(frame))?.[0];
  }
  if (owner === undefined || owner === 'zod' || owner === '@collector/domain') {
    for (const [fn, label] of NAMED) if (names.has(fn)) return label;
  }
  return owner ?? 'other (node internals, module loading, unattributed natives)';
}

/** Each node of a call tree by its id, and each node's parent's id. */
function indexTree(nodes: readonly ProfileNode[]): { byId: Map<number, ProfileNode>; parent: Map<number, number> } {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  return { byId, parent };
}

/** A frame as the summaries name it: its function, then its file (within its package or the workspace) and line. */
function frameKey({ functionName, url, lineNumber, columnNumber }: Frame, withColumn: boolean): string {
  const file = url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(packages|services|tools)\//, '$1/');
  const where = url ? `${file}:${lineNumber + 1}${withColumn ? `:${columnNumber + 1}` : ''}` : '';
  return `${functionName || '(anonymous)'} ${where}`.trim();
}

/** `events`: how many events the process stored while profiled, to turn shares into µs per event. */
export function summarizeProfile(file: string, top = 15, events?: number): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  resolveSources(profile.nodes);
  const { byId, parent } = indexTree(profile.nodes);

  const selfMs = new Map<number, number>();
  let totalMs = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    selfMs.set(id, (selfMs.get(id) ?? 0) + ms);
    totalMs += ms;
  });
  const idleMs = [...selfMs]
    .filter(([id]) => byId.get(id)?.callFrame.functionName === '(idle)')
    .reduce((sum, [, ms]) => sum + ms, 0);
  const busyMs = totalMs - idleMs;

  const byPackage = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const [id, ms] of selfMs) {
    const node = byId.get(id) as ProfileNode;
    const pkg = packageOf(node);
    if (pkg === '(idle)') continue;
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + ms);
    // Positions are in the code as tsx compiled it (no source maps), so line:column rather than line alone.
    const key = frameKey(node.callFrame, true);
    byFunction.set(key, (byFunction.get(key) ?? 0) + ms);
  }

  const bySteps = new Map<string, number>();
  profile.samples.forEach((leaf, i) => {
    if (byId.get(leaf)?.callFrame.functionName === '(idle)') return;
    const label = stepOf(leaf, byId, parent);
    bySteps.set(label, (bySteps.get(label) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });

  const pct = (ms: number) =>
    `${((100 * ms) / busyMs).toFixed(1).padStart(5)}%` +
    (events ? `${((ms * 1000) / events).toFixed(1).padStart(7)} µs/event` : '');
  const lines: string[] = [];
  lines.push(`profile ${file}`);
  lines.push(
    `  wall ${(totalMs / 1000).toFixed(1)} s, on CPU ${(busyMs / 1000).toFixed(1)} s (idle ${(idleMs / 1000).toFixed(1)} s); shares below are of on-CPU time` +
      (events ? `, µs/event over the ${events} events stored (start-up included)` : ''),
  );
  lines.push('  self time by package:');
  for (const [pkg, ms] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, top))
    lines.push(`    ${pct(ms)}  ${pkg}`);
  lines.push('  top functions (self):');
  for (const [fn, ms] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`    ${pct(ms)}  ${fn}`);
  lines.push(
    '  by owner (each sample to the innermost library or workspace file on its stack; validation by function name):',
  );
  for (const [label, ms] of [...bySteps].sort((a, b) => b[1] - a[1])) lines.push(`    ${pct(ms)}  ${label}`);
  return lines.join('\n');
}

/** A node of a .heapprofile (V8's sampling heap profiler): a call tree with the bytes sampled in each frame itself. */
interface HeapProfileNode {
  id: number;
  callFrame: Frame;
  selfSize: number;
  children: HeapProfileNode[];
}

/**
 * Reads a .heapprofile (alloc-sampler.cjs) and says where memory was allocated: bytes by function and by owner, as
 * summarizeProfile says it for CPU (the same owners), per event when `events` is given.
 */
export function summarizeAllocations(file: string, top = 15, events?: number): string {
  const head = (JSON.parse(readFileSync(file, 'utf8')) as { head: HeapProfileNode }).head;
  const nodes: ProfileNode[] = [];
  const selfBytes = new Map<number, number>();
  const flatten = (node: HeapProfileNode) => {
    nodes.push({ id: node.id, callFrame: node.callFrame, children: node.children.map((child) => child.id) });
    if (node.selfSize > 0) selfBytes.set(node.id, node.selfSize);
    for (const child of node.children) flatten(child);
  };
  flatten(head);
  resolveSources(nodes);
  const { byId, parent } = indexTree(nodes);

  const total = [...selfBytes.values()].reduce((sum, bytes) => sum + bytes, 0);
  const byFunction = new Map<string, number>();
  const byOwner = new Map<string, number>();
  for (const [id, bytes] of selfBytes) {
    const key = frameKey((byId.get(id) as ProfileNode).callFrame, false);
    byFunction.set(key, (byFunction.get(key) ?? 0) + bytes);
    const owner = stepOf(id, byId, parent);
    byOwner.set(owner, (byOwner.get(owner) ?? 0) + bytes);
  }
  const share = (bytes: number) =>
    `${((100 * bytes) / total).toFixed(1).padStart(5)}%` +
    (events ? `${(bytes / events / 1024).toFixed(1).padStart(7)} KB/event` : '');
  const lines = [
    `allocation profile ${file}`,
    `  ${(total / 1024 / 1024).toFixed(0)} MB allocated (sampled; freed objects included)` +
      (events
        ? `, ${(total / events / 1024).toFixed(1)} KB an event over the ${events} events stored (start-up included)`
        : ''),
    '  top functions (bytes allocated in the function itself):',
    ...[...byFunction]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([fn, bytes]) => `    ${share(bytes)}  ${fn}`),
    '  by owner (each sample to the innermost library or workspace file on its stack; validation by function name):',
    ...[...byOwner].sort((a, b) => b[1] - a[1]).map(([label, bytes]) => `    ${share(bytes)}  ${label}`),
  ];
  return lines.join('\n');
}

// `tsx src/profile.ts FILE.cpuprofile` (or `FILE.heapprofile`) summarises a profile on its own (a bundle's, while that
// bundle is still built).
if (import.meta.url === `file://${process.argv[1]}`) {
  for (const file of process.argv.slice(2))
    console.log(file.endsWith('.heapprofile') ? summarizeAllocations(file, 25) : summarizeProfile(file, 25));
}
