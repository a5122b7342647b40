// Source maps applied to an event (issue 22), the pure part: which frames a map can apply to and where to look for it,
// how a mapped position becomes a frame (the raw one kept beside it), the stack text written again, and grouping
// version 3 for a mapped event. The look-up (packages/db/src/artifact-lookup.ts) and the mapping itself (off the event
// loop: packages/api/src/symbolication) are the api's.

import { errorTypeOf, framesOf, type StackFrame, type StoredEvent } from './event';
import { computeFingerprint, GROUPING_VERSION } from './fingerprint';
import { eventDataLimits, limits } from './limits';
import { stackOfFrames } from './sentry/event';
import { truncateUtf8 } from './text';

/** A bundled JavaScript file: only frames in one can have a map (query and fragment aside). */
const SCRIPT_PATH = /\.(js|mjs|cjs)$/i;
const URL_WITH_HOST = /^[a-z][a-z0-9+.-]{0,30}:\/\/[^/?#]*(\/[^?#]*)?/i;

/** Where a frame is, as a URL or a path: the full path when the SDK gave one, else the file. */
export const frameLocation = (frame: StackFrame): string | undefined => frame.absPath ?? frame.file;

function withoutQuery(location: string): string {
  const cut = location.search(/[?#]/);
  return cut < 0 ? location : location.slice(0, cut);
}

/** A frame a map can apply to: a line, a column, and a place in a bundled script. */
export function isMappable(frame: StackFrame): boolean {
  const location = frameLocation(frame);
  return (
    frame.raw === undefined &&
    // Lines are 1-based: a frame at line 0 names no position a map has (trace-mapping refuses it).
    frame.line !== undefined &&
    frame.line > 0 &&
    frame.column !== undefined &&
    location !== undefined &&
    SCRIPT_PATH.test(withoutQuery(location))
  );
}

/**
 * Every frame list of an event, each once: its own, each exception's, its thread's (an event as presented has its main
 * exception's list as its own too: presentEvent).
 */
export function frameLists(event: Pick<StoredEvent, 'frames' | 'exceptions' | 'threads'>): StackFrame[][] {
  const lists = new Set<StackFrame[]>();
  if (event.frames) lists.add(event.frames);
  for (const exception of event.exceptions ?? []) lists.add(exception.frames);
  for (const thread of event.threads ?? []) lists.add(thread.frames);
  return [...lists];
}

/** Worth a look-up: frames a map can apply to, and a way to find their map (debug IDs, or a release). */
export function mayBeSymbolicated(event: StoredEvent): boolean {
  if (event.debugImages === undefined && event.release === undefined) return false;
  return frameLists(event).some((frames) => frames.some(isMappable));
}

/**
 * The manifest URLs a bundled file may have been uploaded under, for a frame's location (Sentry's rule): the URL as
 * sent, `~/` and its path whatever the host, each with and without the query string.
 */
export function artifactUrlsFor(location: string): string[] {
  const urls = new Set<string>();
  for (const candidate of [location, withoutQuery(location)]) {
    urls.add(candidate);
    const path = URL_WITH_HOST.exec(candidate)?.[1] ?? (candidate.startsWith('/') ? candidate : undefined);
    if (path !== undefined) urls.add(`~${path}${candidate.slice(withoutQuery(candidate).length)}`);
  }
  return [...urls];
}

/** A bundled file's map URL: its `sourcemap` header resolved against its own URL, else its URL and `.map`. */
export function sourceMapUrlFor(fileUrl: string, sourcemapHeader: string | null | undefined): string[] {
  if (!sourcemapHeader) return [`${withoutQuery(fileUrl)}.map`];
  if (sourcemapHeader.startsWith('data:')) return [];
  // `~/` is no URL base: a stand-in host resolves against it, then the result is written back with `~`.
  const tilde = fileUrl.startsWith('~/');
  const base = tilde ? `http://tilde.invalid/${fileUrl.slice(2)}` : fileUrl;
  try {
    const resolved = new URL(sourcemapHeader, base);
    if (tilde && resolved.host === 'tilde.invalid') return [`~${resolved.pathname}`];
    return artifactUrlsFor(resolved.href);
  } catch {
    return [];
  }
}

/** A frame's position in its original source, as the map gives it (what the mapping worker answers). */
export interface MappedPosition {
  source: string;
  /** 1-based, like the frame's. */
  line: number;
  column: number;
  /** The map's name at this position: the callee's name when the position is a call. */
  name?: string;
  contextLine?: string;
  preContext?: string[];
  postContext?: string[];
}

export type SymbolicationState = NonNullable<StoredEvent['symbolication']>['state'];

/** Libraries and bundler code are not the app's own, even when a map names them. */
function isLibrarySource(source: string): boolean {
  return /(^|\/)node_modules\//.test(source) || /^webpack\/|^external[ "]|\(webpack\)/.test(source);
}

/** Bundler prefixes that say nothing to people: `webpack://app/./src/a.ts` is `src/a.ts`. */
function displaySource(source: string): string {
  return source.replace(/^webpack:\/\/[^/]*\//, '').replace(/^(\.\.?\/)+/, '');
}

/**
 * Replaces each frame of a list that has a position by its original one, innermost first. A frame's function is named
 * by the call position of the frame outside it (the map's `names` there name the callee, as Sentry does without
 * scopes), else it keeps its minified name. The frame as sent is kept in `raw`. Returns how many were mapped.
 */
export function applyPositions(frames: StackFrame[], positions: ReadonlyArray<MappedPosition | undefined>): number {
  let mapped = 0;
  for (let i = 0; i < frames.length; i++) {
    const frame = frames[i] as StackFrame;
    const position = positions[i];
    if (position === undefined) continue;
    const callerName = positions[i + 1]?.name;
    const raw: NonNullable<StackFrame['raw']> = {};
    if (frame.function !== undefined) raw.function = frame.function;
    if (frame.file !== undefined) raw.file = frame.file;
    if (frame.line !== undefined) raw.line = frame.line;
    if (frame.column !== undefined) raw.column = frame.column;
    if (frame.absPath !== undefined) raw.absPath = frame.absPath;
    const one: StackFrame = {
      file: displaySource(position.source).slice(0, limits.frameFileChars),
      line: position.line,
      column: position.column,
      inApp: !isLibrarySource(position.source),
      raw,
    };
    const name = callerName ?? frame.function;
    if (name !== undefined) one.function = name.slice(0, limits.frameFunctionChars);
    if (frame.module !== undefined) one.module = frame.module;
    if (position.source.length <= limits.frameFileChars && position.source !== one.file) one.absPath = position.source;
    const cap = (line: string) => line.slice(0, eventDataLimits.contextLineChars);
    if (position.contextLine !== undefined) one.contextLine = cap(position.contextLine);
    if (position.preContext?.length) one.preContext = position.preContext.slice(-eventDataLimits.contextLines).map(cap);
    if (position.postContext?.length)
      one.postContext = position.postContext.slice(0, eventDataLimits.contextLines).map(cap);
    frames[i] = one;
    mapped++;
  }
  return mapped;
}

/** What symbolication did, from the frames a map could apply to and the ones mapped. */
export function symbolicationState(mappable: number, mapped: number): SymbolicationState {
  return mapped === 0 ? 'missing' : mapped < mappable ? 'partial' : 'mapped';
}

/**
 * After frames were mapped: the stack text written again from them, and, at ingestion, grouping version 3: the event
 * groups on its mapped in-app frames (function@original file, read as version 2 reads a stack), its version 2
 * fingerprint (the raw frames') becoming the previous one, so the issue that grouped it unmapped takes it (the write
 * path's aliases keep that issue once the raw frames change with a rebuild). A client's own fingerprint stays.
 */
export function afterMapping(event: StoredEvent, options: { regroup: boolean }): void {
  const stack = stackOfFrames(event);
  if (stack !== undefined) event.stack = truncateUtf8(stack, limits.stackBytes);
  if (!options.regroup || event.grouping !== GROUPING_VERSION) return;
  const mainFrames = framesOf(event) ?? [];
  if (!mainFrames.some((frame) => frame.raw !== undefined && frame.inApp !== false)) return;
  // A mapped frame whose function no call position named keeps its minified name, which the next build changes: it
  // groups as anonymous (its original file still counts), so that a rebuild keeps the group.
  const grouped = stackOfFrames(event, (frame) =>
    frame.raw === undefined || frame.inApp === false
      ? undefined
      : frame.function === frame.raw.function
        ? { ...frame, function: '?' }
        : frame,
  );
  const fingerprint = computeFingerprint(
    {
      errorType: errorTypeOf(event),
      message: event.message,
      stack: grouped,
      request: event.type === 'request' ? event.request : undefined,
    },
    GROUPING_VERSION,
  );
  if (fingerprint === event.fingerprint) return;
  event.previousFingerprint = event.fingerprint;
  event.fingerprint = fingerprint;
}
