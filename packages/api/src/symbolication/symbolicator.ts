// Source maps applied to events (issue 22): at ingestion, between judging and writing, and when an event is shown
// (a map uploaded after the event). Finds each frame's map (db artifact-lookup.ts), maps the positions in the worker
// pool (pool.ts) within a time limit per event, and puts the mapped frames in the event (domain symbolication.ts).
// An app whose organization has no bundle costs one cached answer per few seconds, and an event with neither debug
// images nor a release nothing at all. Look-ups are cached for as long (a map, or none): the events of one release ask
// about the same few files, and an app that uploads maps should not pay a query per event for frames no map covers.
import {
  type ArtifactMatches,
  appArtifacts,
  artifactContent,
  type Db,
  findSourceMaps,
  releaseHasBundles,
  renewBundles,
  type SourceMapRef,
} from '@collector/db';
import {
  afterMapping,
  applyPositions,
  artifactUrlsFor,
  eventDataLimits,
  frameLists,
  frameLocation,
  isMappable,
  type MappedPosition,
  mayBeSymbolicated,
  type StackFrame,
  type StoredEvent,
  sourceMapUrlFor,
  symbolicationState,
} from '@collector/domain';
import { type MapAnswer, MappingPool } from './pool';

export interface SymbolicationOptions {
  /** Mapping threads (SYMBOLICATION_WORKERS); 0 turns symbolication off. */
  workers: number;
  /** The time limit per event (SYMBOLICATION_TIMEOUT_MS), look-up included: past it the event is stored unmapped. */
  timeoutMs: number;
  /** Parsed maps kept per worker (SYMBOLICATION_CACHE_BYTES). */
  cacheBytes: number;
}

export const defaultSymbolicationOptions: SymbolicationOptions = {
  workers: 1,
  timeoutMs: 2_000,
  cacheBytes: 64 * 1024 * 1024,
};

/**
 * How long an app's "has bundles" answer, a release's, and a file's or debug ID's map (or none) are trusted: an upload
 * is used within this time.
 */
const APP_TTL_MS = 5_000;
const APPS_CAPACITY = 10_000;
const LOOKUPS_CAPACITY = 10_000;
/** A bundle that maps an event is renewed at most this often (artifact_bundles.last_used_at). */
const RENEW_EVERY_MS = 60 * 60 * 1000;
/** Manifest URLs asked for per event: frames of one bundle share them, so few are needed. */
const MAX_FILE_URLS = 200;

/**
 * Answers of the database kept for APP_TTL_MS, as promises: concurrent askers share the query in flight, a failed one
 * is dropped at once, and past its capacity the whole map is emptied.
 */
class Answers<V> {
  private readonly entries = new Map<string, { until: number; value: Promise<V> }>();

  constructor(private readonly capacity: number) {}

  get(key: string, now: number): Promise<V> | undefined {
    const entry = this.entries.get(key);
    return entry && entry.until > now ? entry.value : undefined;
  }

  set(key: string, value: Promise<V>, now: number): void {
    if (this.entries.size >= this.capacity) this.entries.clear();
    this.entries.set(key, { until: now + APP_TTL_MS, value });
    value.catch(() => {
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
    });
  }
}

interface AppEntry {
  orgId: string | null;
  hasBundles: boolean;
  until: number;
}

interface FrameRef {
  list: number;
  index: number;
  ref: SourceMapRef | undefined;
}

const mapKey = (ref: { bundleId: string; url: string }) => `${ref.bundleId}\n${ref.url}`;

export class Symbolicator {
  private readonly apps = new Map<string, AppEntry>();
  /** Each debug ID's and release file's map, or none (undefined), per organization. */
  private readonly lookups = new Answers<SourceMapRef | undefined>(LOOKUPS_CAPACITY);
  /** Whether an organization has bundles of a release and dist. */
  private readonly releases = new Answers<boolean>(APPS_CAPACITY);
  private readonly renewed = new Map<string, number>();
  private readonly pool: MappingPool;

  constructor(
    private readonly db: Db,
    private readonly options: SymbolicationOptions,
    private readonly clock: () => number = Date.now,
  ) {
    this.pool = new MappingPool({ workers: Math.max(1, options.workers), cacheBytes: options.cacheBytes, heapMb: 512 });
  }

  /**
   * At ingestion: maps the events a map may apply to, in place, and regroups the mapped ones (version 3). Undefined
   * when there is nothing to do, so that the caller stays synchronous: no event could be mapped, or the app's
   * organization has no bundle (its events are marked `missing` without a query).
   */
  prepare(appKey: string, events: readonly StoredEvent[]): Promise<void> | undefined {
    if (this.options.workers === 0) return undefined;
    const candidates = events.filter(mayBeSymbolicated);
    if (candidates.length === 0) return undefined;
    const cached = this.apps.get(appKey);
    if (cached && cached.until > this.clock() && !cached.hasBundles) {
      for (const event of candidates) event.symbolication = { state: 'missing' };
      return undefined;
    }
    return this.apply(appKey, candidates, true);
  }

  /** When events are shown: maps the ones stored unmapped, now that their map may be there; no regrouping. */
  async present(appKey: string, events: readonly StoredEvent[]): Promise<void> {
    if (this.options.workers === 0) return;
    const candidates = events.filter(
      (event) =>
        (event.symbolication === undefined ||
          event.symbolication.state === 'missing' ||
          event.symbolication.state === 'timeout') &&
        mayBeSymbolicated(event),
    );
    if (candidates.length > 0) await this.apply(appKey, candidates, false);
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private async apply(appKey: string, events: readonly StoredEvent[], regroup: boolean): Promise<void> {
    const app = await this.app(appKey);
    if (!app.orgId || !app.hasBundles) {
      for (const event of events) event.symbolication = { state: 'missing' };
      return;
    }
    const orgId = app.orgId;
    await Promise.all(events.map((event) => this.symbolicate(orgId, event, regroup)));
  }

  private async app(appKey: string): Promise<AppEntry> {
    const now = this.clock();
    const cached = this.apps.get(appKey);
    if (cached && cached.until > now) return cached;
    const found = await appArtifacts(this.db, appKey);
    const entry = { orgId: found?.orgId ?? null, hasBundles: found?.hasBundles ?? false, until: now + APP_TTL_MS };
    if (this.apps.size >= APPS_CAPACITY) this.apps.clear();
    this.apps.set(appKey, entry);
    return entry;
  }

  /** One event, within its time limit; never throws: a failure is the event's state. */
  private async symbolicate(orgId: string, event: StoredEvent, regroup: boolean): Promise<void> {
    const deadline = Date.now() + this.options.timeoutMs;
    const note = (state: 'timeout' | 'error', detail: string) => {
      event.symbolication = { state, detail: detail.slice(0, eventDataLimits.symbolicationDetailChars) };
    };
    try {
      const lists = frameLists(event);
      const answer = await beforeDeadline(this.lookUpAndMap(orgId, event, lists, deadline), deadline);
      if (answer === 'timeout') return note('timeout', 'source maps took longer than the time limit');
      if (answer === undefined) return;
      if (answer === 'missing') {
        event.symbolication = { state: 'missing' };
        return;
      }
      const { frames, result } = answer;
      if (!result.ok) return note(result.reason, result.detail);
      const byList = lists.map((list) => new Array<MappedPosition | undefined>(list.length));
      const used = new Set<string>();
      frames.forEach((frame, i) => {
        const position = result.positions[i];
        if (position && frame.ref) {
          (byList[frame.list] as Array<MappedPosition | undefined>)[frame.index] = position;
          used.add(frame.ref.bundleId);
        }
      });
      let mapped = 0;
      lists.forEach((list, i) => {
        mapped += applyPositions(list, byList[i] as Array<MappedPosition | undefined>);
      });
      const state = symbolicationState(frames.length, mapped);
      const failure = result.failures[0];
      event.symbolication =
        failure === undefined
          ? { state }
          : {
              state: mapped === 0 ? 'error' : 'partial',
              detail: `a source map could not be read: ${failure}`.slice(0, eventDataLimits.symbolicationDetailChars),
            };
      if (mapped > 0) {
        afterMapping(event, { regroup });
        this.renew([...used]);
      }
    } catch (error) {
      note('error', error instanceof Error ? error.message : String(error));
    }
  }

  /** The maps of the event's frames, then their positions; undefined when the event has no frame to map. */
  private async lookUpAndMap(
    orgId: string,
    event: StoredEvent,
    lists: StackFrame[][],
    deadline: number,
  ): Promise<{ frames: FrameRef[]; result: MapAnswer } | 'missing' | undefined> {
    const mappable: Array<{ list: number; index: number; location: string }> = [];
    lists.forEach((list, listIndex) => {
      list.forEach((frame, index) => {
        const location = frameLocation(frame);
        if (location !== undefined && isMappable(frame)) mappable.push({ list: listIndex, index, location });
      });
    });
    if (mappable.length === 0) return undefined;
    // A frame's debug image: the image whose code file is the frame's URL or path (browser frames carry only one).
    const debugIdOf = new Map<string, string>();
    for (const image of event.debugImages ?? []) debugIdOf.set(image.codeFile, image.debugId);
    const frameDebugId = (listIndex: number, index: number) => {
      const frame = lists[listIndex]?.[index] as StackFrame;
      return (
        (frame.absPath !== undefined ? debugIdOf.get(frame.absPath) : undefined) ??
        (frame.file !== undefined ? debugIdOf.get(frame.file) : undefined)
      );
    };
    const debugIds = new Set<string>();
    const fileUrls = new Set<string>();
    for (const { list, index, location } of mappable) {
      const debugId = frameDebugId(list, index);
      if (debugId !== undefined) debugIds.add(debugId);
      else if (event.release !== undefined && fileUrls.size < MAX_FILE_URLS)
        for (const url of artifactUrlsFor(location)) fileUrls.add(url);
    }
    const matches = await this.findMaps(orgId, [...debugIds], event.release, event.dist, [...fileUrls]);
    const frames: FrameRef[] = mappable.map(({ list, index, location }) => {
      const debugId = frameDebugId(list, index);
      const ref =
        (debugId !== undefined ? matches.byDebugId.get(debugId) : undefined) ??
        artifactUrlsFor(location)
          .map((url) => matches.byFileUrl.get(url))
          .find((found) => found !== undefined);
      return { list, index, ref };
    });
    const withMap = frames.filter((frame) => frame.ref !== undefined);
    if (withMap.length === 0) return 'missing';
    const keys = [...new Set(withMap.map((frame) => mapKey(frame.ref as SourceMapRef)))];
    const refs = new Map(withMap.map((frame) => [mapKey(frame.ref as SourceMapRef), frame.ref as SourceMapRef]));
    const request = {
      maps: keys,
      frames: frames.map((frame) => {
        const source = lists[frame.list]?.[frame.index] as StackFrame;
        // A frame without a map points at map -1: the worker answers null for it.
        return {
          map: frame.ref ? keys.indexOf(mapKey(frame.ref)) : -1,
          line: source.line ?? 0,
          column: source.column ?? 0,
        };
      }),
    };
    // Past the deadline the event is already stored unmapped (beforeDeadline): sending its maps now would only have
    // the pool replace a worker at once for a time the database spent.
    if (Date.now() >= deadline) return undefined;
    const result = await this.pool.map(
      request,
      (key) => {
        const ref = refs.get(key);
        return ref ? artifactContent(this.db, ref) : Promise.resolve(null);
      },
      deadline,
    );
    return { frames, result };
  }

  /**
   * findSourceMaps through the cache: only the debug IDs and file URLs not looked up in the last APP_TTL_MS are asked
   * for, in one query, and concurrent events share it. A failed query is not kept.
   */
  private async findMaps(
    orgId: string,
    debugIds: string[],
    release: string | undefined,
    dist: string | undefined,
    fileUrls: string[],
  ): Promise<ArtifactMatches> {
    const now = this.clock();
    const debugKey = (id: string) => `d\0${orgId}\0${id}`;
    const fileKey = (url: string) => `f\0${orgId}\0${release}\0${dist ?? ''}\0${url}`;
    // Files are looked up by URL only in a release that has bundles: one answer per release, not one per file.
    const urls =
      fileUrls.length > 0 && release !== undefined && !(await this.releaseHasBundles(orgId, release, dist, now))
        ? []
        : fileUrls;
    const asked = [...debugIds.map(debugKey), ...urls.map(fileKey)];
    const refs = new Map(asked.map((key) => [key, this.lookups.get(key, now)]));
    const newDebugIds = debugIds.filter((id) => refs.get(debugKey(id)) === undefined);
    const newFileUrls = urls.filter((url) => refs.get(fileKey(url)) === undefined);
    if (newDebugIds.length > 0 || newFileUrls.length > 0) {
      const found = findSourceMaps(this.db, {
        orgId,
        debugIds: newDebugIds,
        release,
        dist,
        fileUrls: newFileUrls,
        mapUrlsFor: sourceMapUrlFor,
      });
      const remember = (key: string, ref: Promise<SourceMapRef | undefined>) => {
        refs.set(key, ref);
        this.lookups.set(key, ref, now);
      };
      for (const id of newDebugIds)
        remember(
          debugKey(id),
          found.then((matches) => matches.byDebugId.get(id)),
        );
      for (const url of newFileUrls)
        remember(
          fileKey(url),
          found.then((matches) => matches.byFileUrl.get(url)),
        );
    }
    // All awaited at once: a failed query rejects every promise made from it, and none is left unhandled.
    const answers = await Promise.all(asked.map((key) => refs.get(key)));
    const byKey = new Map(asked.map((key, i) => [key, answers[i]]));
    const found = (ids: string[], keyOf: (id: string) => string) => {
      const refsById = new Map<string, SourceMapRef>();
      for (const id of ids) {
        const ref = byKey.get(keyOf(id));
        if (ref !== undefined) refsById.set(id, ref);
      }
      return refsById;
    };
    return { byDebugId: found(debugIds, debugKey), byFileUrl: found(urls, fileKey) };
  }

  /** releaseHasBundles, its answer kept as the maps' are. */
  private releaseHasBundles(orgId: string, release: string, dist: string | undefined, now: number): Promise<boolean> {
    const key = `${orgId}\0${release}\0${dist ?? ''}`;
    const cached = this.releases.get(key, now);
    if (cached !== undefined) return cached;
    const has = releaseHasBundles(this.db, orgId, release, dist);
    this.releases.set(key, has, now);
    return has;
  }

  /** At most once an hour per bundle, in the background: the event does not wait for it. */
  private renew(bundleIds: string[]): void {
    const now = this.clock();
    const due = bundleIds.filter((id) => (this.renewed.get(id) ?? 0) <= now - RENEW_EVERY_MS);
    if (due.length === 0) return;
    if (this.renewed.size >= APPS_CAPACITY) this.renewed.clear();
    for (const id of due) this.renewed.set(id, now);
    renewBundles(this.db, due, now, now - RENEW_EVERY_MS).catch(() => {
      // Renewal is best effort: the next mapped event an hour later tries again.
      for (const id of due) this.renewed.delete(id);
    });
  }
}

/** The promise's value, or 'timeout' once the deadline passes first. */
async function beforeDeadline<T>(promise: Promise<T>, deadline: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
