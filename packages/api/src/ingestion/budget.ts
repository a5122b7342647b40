// Admission control: one budget of body bytes in flight per process, shared by the batch endpoint, the Sentry
// endpoints and tRPC calls; ingestion (./ingestion.ts) holds it and the HTTP adapters ask it before reading a body.
// A request reserves what its body may cost before the body is read, lowers that to what it holds once the body is
// read, and gives it back when its response is done or its connection closes; over budget it is answered 503 at once,
// its body unread, so a burst of large requests waits in the clients (which back off on 503 + Retry-After), not in
// the heap.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { contractError } from '../errors';

/** Where refusals are reported: the service's logger (pino) fits. */
export interface BudgetLogger {
  warn(fields: object, message: string): void;
}

/** Requests in flight end within a group commit (milliseconds to a second or two): a second later there is room. */
const RETRY_AFTER_BUSY_SECONDS = 1;
const WARN_EVERY_MS = 1_000;

const RESERVED = Symbol('ingestion bytes reserved');
const CLOSED = Symbol('connection closed, its reservations released');
type Reserving = { [RESERVED]?: number };
type ReservingSocket = Socket & Reserving & { [CLOSED]?: true };

/** Whether a body arrives as it is, so that its Content-Length is all it can cost; any other encoding inflates. */
function isIdentity(contentEncoding: string | undefined): boolean {
  if (contentEncoding === undefined) return true;
  const encoding = contentEncoding.trim().toLowerCase();
  return encoding === '' || encoding === 'identity';
}

export class IngestBudget {
  private inFlight = 0;
  private refusedSinceWarning = 0;
  private lastWarningAt = Number.NEGATIVE_INFINITY;
  /** The one answer to every refusal: no error is made per request (it is never changed on its way out). */
  readonly refusal = contractError('UNAVAILABLE', {
    retryAfterSeconds: RETRY_AFTER_BUSY_SECONDS,
    details: [
      {
        path: '',
        message:
          'the collector holds as many ingestion bytes as it takes at once; retry after the seconds in Retry-After',
      },
    ],
  });

  // Listeners shared by every request (none is made per request): what each holds is kept on its response and socket.
  private readonly onResponseClose: (this: ServerResponse & Reserving) => void;
  private readonly onSocketClose: (this: ReservingSocket) => void;

  /**
   * `setting` names the environment variable that sizes this budget, for its warnings: ingestion's is one budget,
   * source-map uploads (UPLOAD_MAX_IN_FLIGHT_BYTES) another, so that neither can take the other's room.
   */
  constructor(
    readonly maxBytes: number,
    private readonly logger: BudgetLogger,
    private readonly setting = 'INGEST_MAX_IN_FLIGHT_BYTES',
  ) {
    const budget = this;
    this.onResponseClose = function () {
      const bytes = this[RESERVED] ?? 0;
      this[RESERVED] = 0;
      const socket = this.req.socket as ReservingSocket;
      // Already given back with its connection's.
      if (bytes === 0 || socket[CLOSED]) return;
      socket[RESERVED] = (socket[RESERVED] ?? 0) - bytes;
      budget.inFlight -= bytes;
    };
    // A response queued behind another on a pipelined connection never emits 'close' when that connection dies; the
    // socket's 'close' reaches every request on it, so what is still held there is given back then.
    this.onSocketClose = function () {
      budget.inFlight -= this[RESERVED] ?? 0;
      this[RESERVED] = 0;
      this[CLOSED] = true;
    };
  }

  get bytesInFlight(): number {
    return this.inFlight;
  }

  /**
   * Reserves what the request's body may cost before it is read: its Content-Length when it comes as is, otherwise
   * `maxBodyBytes`, the most the route's reader holds of a body. False when that would pass the budget: answer
   * `refusal` without reading the body. A request is always let in when nothing else is in flight, so a budget smaller
   * than one body still lets bodies through, one at a time.
   */
  admit(req: IncomingMessage, res: ServerResponse, maxBodyBytes: number): boolean {
    const socket = req.socket as ReservingSocket;
    // The connection is gone: the body cannot be read, and no 'close' would come to give a reservation back.
    if (socket.destroyed) return true;
    const declared = req.headers['content-length'];
    const cost =
      declared !== undefined && isIdentity(req.headers['content-encoding'])
        ? Math.min(Number(declared), maxBodyBytes)
        : maxBodyBytes;
    if (this.inFlight > 0 && this.inFlight + cost > this.maxBytes) {
      this.refused();
      return false;
    }
    if (cost === 0) return true;
    this.inFlight += cost;
    (res as ServerResponse & Reserving)[RESERVED] = cost;
    res.on('close', this.onResponseClose);
    if (socket[RESERVED] === undefined) socket.once('close', this.onSocketClose);
    socket[RESERVED] = (socket[RESERVED] ?? 0) + cost;
    return true;
  }

  /**
   * Lowers a request's reservation to what its body turned out to hold once read (never raises it): a compressed body
   * reserves the most it may inflate to while it is read, then only its size for the rest of its stay, the wait for
   * its statement included.
   */
  settle(res: ServerResponse, bytes: number): void {
    const reserving = res as ServerResponse & Reserving;
    const held = reserving[RESERVED] ?? 0;
    const socket = res.req.socket as ReservingSocket;
    if (bytes >= held || socket[CLOSED]) return;
    reserving[RESERVED] = bytes;
    socket[RESERVED] = (socket[RESERVED] ?? 0) - (held - bytes);
    this.inFlight -= held - bytes;
  }

  /** One warning a second at most, with the refusals since the last one: a burst is one line, not one per request. */
  private refused(): void {
    this.refusedSinceWarning++;
    const now = performance.now();
    if (now - this.lastWarningAt < WARN_EVERY_MS) return;
    this.logger.warn(
      { refused: this.refusedSinceWarning, bytesInFlight: this.inFlight, maxBytes: this.maxBytes },
      // Ingestion's line is the one docs/operations.md quotes; uploads say whose budget it is.
      this.setting === 'INGEST_MAX_IN_FLIGHT_BYTES'
        ? 'ingestion at its limit of bytes in flight (INGEST_MAX_IN_FLIGHT_BYTES): answering 503 with Retry-After'
        : `uploads at their limit of bytes in flight (${this.setting}): answering 503 with Retry-After`,
    );
    this.lastWarningAt = now;
    this.refusedSinceWarning = 0;
  }
}
