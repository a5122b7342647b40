// The mapping workers (worker.mjs): a small pool of threads, each with its own cache of parsed maps. A request names
// its maps by key; the worker asks for the bytes of the ones it lacks, which are read from the database only then. A
// request past its deadline is answered `timeout` at once, and its worker, busy with it, is replaced: a huge map
// blocks that thread, never the event loop nor the next events.
import { Worker } from 'node:worker_threads';
import type { MappedPosition } from '@collector/domain';
import { eventDataLimits } from '@collector/domain';

export interface MapRequest {
  /** The maps the frames use, by key (bundle id and URL); `load` reads one's bytes when the worker lacks it. */
  maps: readonly string[];
  frames: ReadonlyArray<{ map: number; line: number; column: number }>;
}

export type MapAnswer =
  | { ok: true; positions: Array<MappedPosition | null>; failures: string[] }
  | { ok: false; reason: 'timeout' | 'error'; detail: string };

export interface PoolOptions {
  /** Threads (SYMBOLICATION_WORKERS). */
  workers: number;
  /** Bytes of parsed maps each worker keeps (SYMBOLICATION_CACHE_BYTES), counted as three times their JSON. */
  cacheBytes: number;
  /** A worker's heap, in MiB: a map too large for it fails alone (the worker is replaced), never the process. */
  heapMb: number;
}

interface Slot {
  worker: Worker;
  /** Requests sent to it, by id, not yet answered. */
  pending: Map<number, (message: WorkerMessage) => void>;
  /**
   * Maps being read and sent to it, by key, settled once the request carrying the bytes is posted: the events that
   * arrive meanwhile wait for it and send none (a worker reads its messages in order), rather than each reading the
   * same map from the database and sending it again.
   */
  sending: Map<string, Promise<void>>;
}

type WorkerMessage =
  | { id: number; need: string[] }
  | { id: number; positions: Array<MappedPosition | null>; failures: string[] };

const workerFile = new URL('./worker.mjs', import.meta.url);

/** The worker stopped (replaced after another request's timeout, or crashed) while a request waited on it. */
class WorkerGone extends Error {}

export class MappingPool {
  private readonly slots: Array<Slot | undefined>;
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: PoolOptions) {
    this.slots = new Array(options.workers).fill(undefined);
  }

  /**
   * Maps the frames within `deadline` (ms since epoch, Date.now's clock). The same maps go to the same worker (its
   * cache holds them); `load` gives a map's bytes, or null when it is gone.
   */
  async map(request: MapRequest, load: (key: string) => Promise<Buffer | null>, deadline: number): Promise<MapAnswer> {
    if (this.closed) return { ok: false, reason: 'error', detail: 'the server is stopping' };
    const index = slotIndex(request.maps[0] ?? '', this.slots.length);
    const slot = this.slot(index);
    const id = this.nextId++;
    let timer: NodeJS.Timeout | undefined;
    let waitingOnWorker = true;
    const timedOut = new Promise<MapAnswer>((resolve) => {
      timer = setTimeout(
        () => {
          // Waiting on the worker, it may be stuck parsing a huge map: it is replaced, and its other requests end now
          // (as timeouts: mapped again when shown). Waiting on the database for a map's bytes, the worker is not to
          // blame: it and its cache stay.
          if (waitingOnWorker) this.replace(index, slot, true);
          resolve({ ok: false, reason: 'timeout', detail: 'source maps took longer than the time limit' });
        },
        Math.max(0, deadline - Date.now()),
      );
    });
    const answered = (async (): Promise<MapAnswer> => {
      let message = await this.send(slot, id, {
        id,
        maps: request.maps.map((key) => ({ key })),
        frames: request.frames,
      });
      if ('need' in message) {
        const need = new Set(message.need);
        const underway = [...need].flatMap((key) => slot.sending.get(key) ?? []);
        const mine = [...need].filter((key) => !slot.sending.has(key));
        let posted = () => {};
        const postedPromise = new Promise<void>((resolve) => {
          posted = resolve;
        });
        for (const key of mine) slot.sending.set(key, postedPromise);
        try {
          waitingOnWorker = false;
          await Promise.all(underway);
          const maps = await Promise.all(
            request.maps.map(async (key) =>
              mine.includes(key) ? { key, content: (await load(key)) ?? Buffer.from('') } : { key },
            ),
          );
          if (this.slots[index] !== slot) throw new WorkerGone('the mapping worker was replaced');
          waitingOnWorker = true;
          const answer = this.send(slot, id, { id, maps, frames: request.frames });
          posted();
          message = await answer;
        } finally {
          posted();
          for (const key of mine) if (slot.sending.get(key) === postedPromise) slot.sending.delete(key);
        }
      }
      if ('need' in message) return { ok: false, reason: 'error', detail: 'the mapping worker lost a map' };
      return { ok: true, positions: message.positions, failures: message.failures };
    })().catch(
      (error: unknown): MapAnswer =>
        error instanceof WorkerGone
          ? // Another request's map stopped the worker: this event's maps were not at fault, so it is tried again when shown.
            { ok: false, reason: 'timeout', detail: error.message }
          : { ok: false, reason: 'error', detail: error instanceof Error ? error.message : String(error) },
    );
    try {
      return await Promise.race([answered, timedOut]);
    } finally {
      clearTimeout(timer);
      slot.pending.delete(id);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(
      this.slots.map((slot, index) => {
        if (!slot) return undefined;
        this.slots[index] = undefined;
        for (const reject of slot.pending.values()) reject({ id: 0, need: [] });
        return slot.worker.terminate();
      }),
    );
  }

  private send(slot: Slot, id: number, message: unknown): Promise<WorkerMessage> {
    return new Promise((resolve, reject) => {
      slot.pending.set(id, (answer) => {
        // An empty `need` is the pool's own signal: the worker is gone.
        if ('need' in answer && answer.need.length === 0) reject(new WorkerGone('the mapping worker stopped'));
        else resolve(answer);
      });
      slot.worker.postMessage(message);
    });
  }

  private slot(index: number): Slot {
    const existing = this.slots[index];
    if (existing) return existing;
    const worker = new Worker(workerFile, {
      workerData: {
        cacheBytes: this.options.cacheBytes,
        contextLines: eventDataLimits.contextLines,
        contextLineChars: eventDataLimits.contextLineChars,
      },
      resourceLimits: { maxOldGenerationSizeMb: this.options.heapMb },
    });
    // An idle pool keeps no process alive.
    worker.unref();
    const slot: Slot = { worker, pending: new Map(), sending: new Map() };
    worker.on('message', (message: WorkerMessage) => slot.pending.get(message.id)?.(message));
    // Out of memory, a crash: whatever it was doing fails (stored unmapped), the next request gets a new one. Not
    // started at once: a worker that cannot start (a missing file) would otherwise be restarted in a loop.
    const fail = () => this.replace(index, slot, false);
    worker.on('error', fail);
    worker.on('exit', fail);
    this.slots[index] = slot;
    return slot;
  }

  private replace(index: number, slot: Slot, startSuccessor: boolean): void {
    if (this.slots[index] === slot) this.slots[index] = undefined;
    const waiting = [...slot.pending.values()];
    slot.pending.clear();
    for (const reject of waiting) reject({ id: 0, need: [] });
    void slot.worker.terminate();
    // After a timeout its successor starts now, so that the next event does not pay a thread's start within its limit.
    if (startSuccessor && !this.closed && this.slots[index] === undefined) this.slot(index);
  }
}

/** A stable choice of worker for a map: its cache then holds each map once. */
function slotIndex(key: string, slots: number): number {
  let hash = 0;
  for (let i = 0; i < key.length; i++) hash = (Math.imul(hash, 31) + key.charCodeAt(i)) | 0;
  return Math.abs(hash) % slots;
}
