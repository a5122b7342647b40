// Reading what Sentry SDKs post: an envelope (/envelope/) or one JSON event (/store/), compressed or not, as a stream
// with its limits checked while it arrives and while it decompresses, so an oversized body or a decompression bomb
// costs at most the limit. Event items are kept; feedback, user_report and client_report items are read one at a time
// and mapped at once (domain's sentry/feedback.ts), so only their small results stay; every other item is skipped
// without being buffered, and so is a feedback or report that is too large or unreadable (never an error: the
// envelope's event is still stored).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Readable, Transform, type TransformCallback, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  brotliDecompressSync,
  createBrotliDecompress,
  createGunzip,
  createInflate,
  gunzipSync,
  inflateSync,
  type ZlibOptions,
} from 'node:zlib';
import { contractError } from '@collector/api';
import {
  AppError,
  type ClientDiscard,
  type ClientDiscardReason,
  clientDiscardsFromSentry,
  type FeedbackInput,
  feedbackFromSentry,
  sentryLimits,
  userReportFromSentry,
} from '@collector/domain';

type Json = Record<string, unknown>;

export interface SentryEventPayload {
  /** The event's own event_id, else the envelope header's, else a new one: every event has an id to answer with. */
  eventId: string;
  event: Json;
}

export interface SentryEnvelope {
  header: Json;
  /** At most one: an envelope carries one event, as Sentry's protocol says. */
  events: SentryEventPayload[];
  /** Its feedback and user_report items, mapped and cut; at most sentryLimits.feedbackPerEnvelope. */
  feedback: FeedbackInput[];
  /** Error events its client_report items say the SDK dropped, summed per reason. */
  clientDiscards: ClientDiscard[];
  /**
   * Items of every other type (transaction, session, attachment, ...), and feedback or reports too large or unreadable:
   * skipped, counted.
   */
  skippedItems: number;
  /** Bytes of the body kept (the envelope's header line, its event and feedback), what the request holds once read. */
  keptBytes: number;
}

/** The item types read; `event` is held whole, the others are mapped as soon as they end. */
type KeptItem = 'event' | 'feedback' | 'user_report' | 'client_report';
const sideItems = new Set<unknown>(['feedback', 'user_report', 'client_report']);

const NEWLINE = 0x0a;
const utf8 = new TextDecoder('utf-8', { fatal: true });

// The contract's one message per code; what went wrong where goes into details.
const tooLarge = (what: string, limit: number) =>
  contractError('PAYLOAD_TOO_LARGE', { details: [{ path: what, message: `over the limit of ${limit} bytes` }] });
const unreadable = (what: string, message: string) =>
  contractError('INVALID_JSON', { details: [{ path: what, message }] });
const invalid = (what: string, message: string) =>
  contractError('VALIDATION_FAILED', { details: [{ path: what, message }] });

const newEventId = () => randomUUID().replaceAll('-', '');

/** Chunks read as one buffer: the one chunk itself when there is one (a small body usually is), else a copy of all. */
const joined = (chunks: readonly Buffer[]): Buffer =>
  chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);

/**
 * Whether JSON text nests deeper than `max` arrays/objects: a scan without parsing, so a deep payload costs one pass.
 * A string is skipped with indexOf to its closing quote (most of an event's text is in strings): a scan of every
 * character cost 7.4 µs on a 2.8 KB browser event, about what JSON.parse takes for it.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22) {
      let end = text.indexOf('"', i + 1);
      while (end !== -1 && escapedAt(text, end, i + 1)) end = text.indexOf('"', end + 1);
      if (end === -1) return false;
      i = end;
    } else if (code === 0x7b || code === 0x5b) {
      if (++depth > max) return true;
    } else if (code === 0x7d || code === 0x5d) depth--;
  }
  return false;
}

/** Whether the quote at `at` is escaped: an odd run of backslashes before it, in the string that began at `from`. */
function escapedAt(text: string, at: number, from: number): boolean {
  let backslashes = 0;
  for (let k = at - 1; k >= from && text.charCodeAt(k) === 0x5c; k--) backslashes++;
  return backslashes % 2 === 1;
}

/** UTF-8 bytes to a JSON object, or the contract's 400. */
function parseObject(bytes: Uint8Array, what: string, maxDepth?: number): Json {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw unreadable(what, 'not valid UTF-8');
  }
  if (maxDepth !== undefined && nestsDeeperThan(text, maxDepth)) {
    throw invalid(what, `nested deeper than ${maxDepth} levels`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw unreadable(what, 'not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw unreadable(what, 'not a JSON object');
  return value as Json;
}

type State =
  | { kind: 'envelope-header' }
  | { kind: 'item-header' }
  /** A payload of known length; buffered when `keep` names its type, otherwise only counted down. */
  | { kind: 'sized-payload'; remaining: number; keep: KeptItem | null }
  /** A payload without length: up to the next newline or the end. */
  | { kind: 'line-payload'; keep: KeptItem | null }
  /** After a sized payload: one optional newline. */
  | { kind: 'after-payload' };

/**
 * An envelope read as its bytes arrive (https://develop.sentry.dev/sdk/data-model/envelopes/): push chunks, then end.
 * Holds at most one header line or one event payload at a time; a skipped item's bytes are never kept.
 */
export class EnvelopeParser {
  private state: State = { kind: 'envelope-header' };
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  private header: Json | undefined;
  private readonly events: SentryEventPayload[] = [];
  private readonly feedback: FeedbackInput[] = [];
  private readonly clientDiscards = new Map<ClientDiscardReason, number>();
  private skippedItems = 0;
  private keptBytes = 0;

  push(chunk: Buffer): void {
    let offset = 0;
    while (offset < chunk.length) {
      const state = this.state;
      switch (state.kind) {
        case 'envelope-header':
        case 'item-header':
        case 'line-payload': {
          const newline = chunk.indexOf(NEWLINE, offset);
          const end = newline < 0 ? chunk.length : newline;
          if (state.kind !== 'line-payload') this.buffer(chunk.subarray(offset, end), 'header line');
          else if (state.keep) this.buffer(chunk.subarray(offset, end), state.keep);
          offset = end;
          if (newline >= 0) {
            offset = newline + 1;
            this.lineEnded();
          }
          break;
        }
        case 'sized-payload': {
          const take = Math.min(state.remaining, chunk.length - offset);
          if (state.keep) this.buffer(chunk.subarray(offset, offset + take), state.keep);
          state.remaining -= take;
          offset += take;
          if (state.remaining === 0) {
            if (state.keep) this.itemEnded(state.keep);
            this.state = { kind: 'after-payload' };
          }
          break;
        }
        case 'after-payload':
          if (chunk[offset] === NEWLINE) offset++;
          this.state = { kind: 'item-header' };
          break;
      }
    }
  }

  /** The body ended: what was read, or the 400 a truncated envelope deserves. */
  end(): SentryEnvelope {
    const state = this.state;
    if (state.kind === 'envelope-header' || (state.kind === 'item-header' && this.bufferedBytes > 0)) this.lineEnded();
    const final = this.state;
    if (final.kind === 'envelope-header') throw unreadable('envelope', 'no header line');
    if (final.kind === 'sized-payload' && final.remaining > 0)
      throw unreadable('item', 'the envelope ends inside an item: its length says more bytes follow');
    if (final.kind === 'line-payload') {
      if (final.keep) this.itemEnded(final.keep);
      else this.state = { kind: 'item-header' };
    }
    return {
      header: this.header ?? {},
      events: this.events,
      feedback: this.feedback,
      clientDiscards: [...this.clientDiscards].map(([reason, quantity]) => ({ reason, quantity })),
      skippedItems: this.skippedItems,
      keptBytes: this.keptBytes,
    };
  }

  private buffer(bytes: Buffer, what: KeptItem | 'header line'): void {
    if (bytes.length === 0) return;
    this.bufferedBytes += bytes.length;
    if (what === 'header line' || what === 'event') {
      const limit = what === 'header line' ? sentryLimits.headerBytes : sentryLimits.eventBytes;
      if (this.bufferedBytes > limit) throw tooLarge(what, limit);
    } else if (this.bufferedBytes > sentryLimits.sideItemBytes) {
      // A feedback or report over its limit is dropped, not the envelope: the rest of it streams past unbuffered.
      this.takeBuffered();
      this.skippedItems++;
      if (this.state.kind === 'sized-payload' || this.state.kind === 'line-payload') this.state.keep = null;
      return;
    }
    this.buffered.push(bytes);
  }

  private takeBuffered(): Buffer {
    const bytes = joined(this.buffered);
    this.buffered = [];
    this.bufferedBytes = 0;
    return bytes;
  }

  private lineEnded(): void {
    const state = this.state;
    if (state.kind === 'line-payload') {
      if (state.keep) this.itemEnded(state.keep);
      this.state = { kind: 'item-header' };
      return;
    }
    const line = this.takeBuffered();
    if (state.kind === 'envelope-header') {
      this.header = parseObject(line, 'envelope header');
      this.keptBytes += line.length;
      this.state = { kind: 'item-header' };
      return;
    }
    // Blank lines between items carry nothing; SDKs and proxies sometimes leave one.
    if (line.every((byte) => byte === 0x20 || byte === 0x0d || byte === 0x09)) return;
    this.itemHeader(parseObject(line, 'item header'));
  }

  private itemHeader(header: Json): void {
    let keep: KeptItem | null =
      header.type === 'event' ? 'event' : sideItems.has(header.type) ? (header.type as KeptItem) : null;
    if (keep === 'event' && this.events.length > 0) throw invalid('event', 'an envelope holds at most one event item');
    if ((keep === 'feedback' || keep === 'user_report') && this.feedback.length >= sentryLimits.feedbackPerEnvelope)
      keep = null;
    const { length } = header;
    if (length !== undefined && length !== null) {
      if (typeof length !== 'number' || !Number.isInteger(length) || length < 0)
        throw unreadable('item header', 'its length is not a whole number of bytes');
      if (keep === 'event' && length > sentryLimits.eventBytes) throw tooLarge('event', sentryLimits.eventBytes);
      if (keep !== 'event' && length > sentryLimits.sideItemBytes) keep = null;
    }
    if (!keep) this.skippedItems++;
    if (length === undefined || length === null) {
      this.state = { kind: 'line-payload', keep };
      return;
    }
    if (length === 0) {
      if (keep) this.itemEnded(keep);
      this.state = { kind: 'after-payload' };
      return;
    }
    this.state = { kind: 'sized-payload', remaining: length, keep };
  }

  private itemEnded(kind: KeptItem): void {
    const payload = this.takeBuffered();
    if (kind !== 'event') {
      this.sideItemEnded(kind, payload);
      return;
    }
    this.keptBytes += payload.length;
    const event = parseObject(payload, 'event', sentryLimits.eventNestingDepth);
    this.events.push({ eventId: eventIdOf(event, this.header), event });
  }

  /** A feedback, user_report or client_report, mapped now; one that cannot be read is skipped, never an error. */
  private sideItemEnded(kind: Exclude<KeptItem, 'event'>, payload: Buffer): void {
    let item: Json;
    try {
      item = parseObject(payload, kind, sentryLimits.eventNestingDepth);
    } catch {
      this.skippedItems++;
      return;
    }
    if (kind === 'client_report') {
      const discards = clientDiscardsFromSentry(item);
      if (!discards) this.skippedItems++;
      for (const { reason, quantity } of discards ?? [])
        this.clientDiscards.set(reason, (this.clientDiscards.get(reason) ?? 0) + quantity);
      return;
    }
    const feedback = kind === 'feedback' ? feedbackFromSentry(item, this.header?.event_id) : userReportFromSentry(item);
    if (!feedback) {
      this.skippedItems++;
      return;
    }
    this.feedback.push(feedback);
    // What the request holds of it until its commit: its texts, at most a few KiB.
    this.keptBytes += Buffer.byteLength(JSON.stringify(feedback));
  }
}

function eventIdOf(event: Json, header: Json | undefined): string {
  if (typeof event.event_id === 'string' && event.event_id !== '') return event.event_id;
  if (typeof header?.event_id === 'string' && header.event_id !== '') return header.event_id;
  return newEventId();
}

/**
 * The most of a body each reader holds at once, what ingestion's budget reserves for a compressed body. An envelope streams
 * through its parser, which keeps its header, one event, one feedback or report being read (mapped as soon as it ends,
 * so only its small result stays) and one item's header line at most; the rest of its 20 MiB
 * decompressed passes by without being kept, so reserving decodedBytes would count twenty times what it costs (and
 * the default 32 MiB budget would take one compressed envelope, what sentry-python sends by default, at a time).
 * /store/ keeps the whole event.
 */
export const heldBytes = {
  envelope: sentryLimits.eventBytes + sentryLimits.sideItemBytes + 2 * sentryLimits.headerBytes,
  store: sentryLimits.eventBytes,
} as const;

/** Counts bytes through it and fails with 413 past the limit, so nothing past the limit is ever read on. */
class ByteLimit extends Transform {
  private bytes = 0;

  constructor(
    private readonly limit: number,
    private readonly what: string,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.limit) callback(tooLarge(this.what, this.limit));
    else callback(null, chunk);
  }
}

/** The body's compression, by its Content-Encoding: null for none; 415 for one the endpoints do not take. */
function compressionOf(contentEncoding: string | undefined): Compression | null {
  const encoding = (contentEncoding ?? 'identity').trim().toLowerCase();
  switch (encoding) {
    case '':
    case 'identity':
      return null;
    case 'gzip':
    case 'x-gzip':
      return compressions.gzip;
    case 'deflate':
      return compressions.deflate;
    case 'br':
      return compressions.br;
    default:
      throw contractError('UNSUPPORTED_MEDIA_TYPE', {
        details: [{ path: 'Content-Encoding', message: 'send identity, gzip, deflate or br' }],
      });
  }
}

interface Compression {
  stream: () => Transform;
  /** Throws a RangeError with code ERR_BUFFER_TOO_LARGE past maxOutputLength. */
  sync: (input: Buffer, options: ZlibOptions) => Buffer;
}

const compressions = {
  gzip: { stream: createGunzip, sync: gunzipSync },
  deflate: { stream: createInflate, sync: inflateSync },
  br: { stream: createBrotliDecompress, sync: brotliDecompressSync },
} satisfies Record<string, Compression>;

/**
 * A compressed body this small (as its Content-Length declares it) is read whole and decompressed in one synchronous
 * call, up to `syncDecodedBytes` of output: a stream pipeline (zlib's thread-pool round trips, three more streams, an
 * abort controller) cost ~165 µs a request against ~7 for the call, most of a gzipped one-event /store/ request's CPU
 * (python's sentry-sdk gzips every body). Larger bodies, and a small one that decompresses past that, stream as before,
 * so one request holds at most what heldBytes reserves and blocks the event loop for 1-2 ms of decompression at most.
 */
const syncWireBytes = 64 * 1024;
const syncDecodedBytes = sentryLimits.eventBytes;

/**
 * Reads the request's body into `consume`, decompressed, the wire and decoded limits checked on the way (a bomb
 * costs at most the decoded limit). The request itself is never destroyed, so the error can still be answered; Node
 * discards the rest.
 */
async function streamBody(req: IncomingMessage, decodedLimit: number, consume: (chunk: Buffer) => void): Promise<void> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > sentryLimits.wireBytes) throw tooLarge('body', sentryLimits.wireBytes);
  const compression = compressionOf(req.headers['content-encoding']);
  if (!compression) return readPlainBody(req, Math.min(sentryLimits.wireBytes, decodedLimit), consume);
  if (declared === 0 || declared > syncWireBytes) return decompressStream(req, compression, decodedLimit, consume);
  const chunks: Buffer[] = [];
  await readPlainBody(req, sentryLimits.wireBytes, (chunk) => chunks.push(chunk));
  const body = joined(chunks);
  let decoded: Buffer;
  try {
    decoded = compression.sync(body, { maxOutputLength: Math.min(decodedLimit, syncDecodedBytes) });
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_BUFFER_TOO_LARGE')
      throw unreadable('body', 'it could not be read or decompressed');
    if (decodedLimit <= syncDecodedBytes) throw tooLarge('decompressed body', decodedLimit);
    return decompressStream(Readable.from([body]), compression, decodedLimit, consume);
  }
  consume(decoded);
}

/**
 * The body through its decompressor, as a stream: decompressed and checked while it arrives. `source` is the request,
 * or (for a small body that decompressed past syncDecodedBytes) its bytes read already.
 */
async function decompressStream(
  source: IncomingMessage | Readable,
  compression: Compression,
  decodedLimit: number,
  consume: (chunk: Buffer) => void,
): Promise<void> {
  const wire = new ByteLimit(sentryLimits.wireBytes, 'body');
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      try {
        consume(chunk);
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
  });
  source.pipe(wire);
  // pipe() passes on neither errors nor an abort: a client that goes away mid-body must not leave this waiting.
  const abandoned = () => {
    if ('complete' in source && !source.complete) wire.destroy(unreadable('body', 'it ended early'));
  };
  source.once('close', abandoned);
  try {
    await pipeline(wire, compression.stream(), new ByteLimit(decodedLimit, 'decompressed body'), sink);
  } catch (error) {
    source.unpipe(wire);
    if (error instanceof AppError) throw error;
    // A corrupt or truncated compressed stream: the body's fault, not ours.
    throw unreadable('body', 'it could not be read or decompressed');
  } finally {
    source.off('close', abandoned);
  }
}

/**
 * A body as it arrives (uncompressed, or compressed and small), without a stream pipeline: most SDKs send envelopes
 * uncompressed, one event a request, and a pipeline's transforms, sink and internal abort (a DOMException each time)
 * were several percent of the endpoint's CPU in a profile. Same limits and errors; the request is not destroyed, and
 * Node discards what is left of it.
 */
function readPlainBody(req: IncomingMessage, limit: number, consume: (chunk: Buffer) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let bytes = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      req.off('error', onError);
    };
    const fail = (error: unknown) => {
      stop();
      reject(error instanceof AppError ? error : unreadable('body', 'it could not be read or decompressed'));
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > limit) return fail(tooLarge('body', limit));
      try {
        consume(chunk);
      } catch (error) {
        fail(error);
      }
    };
    const onEnd = () => {
      stop();
      resolve();
    };
    // A client that goes away mid-body must not leave this waiting.
    const onClose = () => {
      if (!req.complete) fail(unreadable('body', 'it ended early'));
    };
    const onError = (error: Error) => fail(error);
    // Gone before its body was asked for (the key was checked first): no event will come.
    if (req.destroyed && !req.complete) return reject(unreadable('body', 'it ended early'));
    // A small body usually arrived with its headers, and the parser has it all by the time the key was checked: take
    // it as it lies, without flowing mode's listeners and events (one event a request makes those count).
    if (req.complete && !req.readableFlowing) {
      for (let chunk = req.read() as Buffer | null; chunk !== null; chunk = req.read() as Buffer | null) {
        bytes += chunk.length;
        if (bytes > limit) return fail(tooLarge('body', limit));
        try {
          consume(chunk);
        } catch (error) {
          return fail(error);
        }
      }
      return resolve();
    }
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
    req.on('error', onError);
  });
}

/** The body of POST /api/<project>/envelope/. */
export async function readEnvelope(req: IncomingMessage): Promise<SentryEnvelope> {
  const parser = new EnvelopeParser();
  await streamBody(req, sentryLimits.decodedBytes, (chunk) => parser.push(chunk));
  return parser.end();
}

/** The body of POST /api/<project>/store/: one JSON event, as an envelope with that one event item. */
export async function readStoreBody(req: IncomingMessage): Promise<SentryEnvelope> {
  const chunks: Buffer[] = [];
  await streamBody(req, sentryLimits.eventBytes, (chunk) => chunks.push(chunk));
  const body = joined(chunks);
  const event = parseObject(body, 'event', sentryLimits.eventNestingDepth);
  return {
    header: {},
    events: [{ eventId: eventIdOf(event, undefined), event }],
    feedback: [],
    clientDiscards: [],
    skippedItems: 0,
    keptBytes: body.length,
  };
}
