// A jsonb parameter given as its elements' JSON texts: the write statement's input rows (write-path/events.ts), which
// never become one string. A statement's rows run to megabytes; as one string they were a new large object every time
// (V8 places strings over 128 KiB in fresh pages of their own), then copied again into pg's message. On the 2-CPU VM
// of docs/performance.md, first touches of fresh memory cost more than the serialising itself: joining and sending a
// statement's rows took 41-51 µs an event, these 12-20 (`pnpm --filter @collector/bench rows-param`; docs/performance.md,
// "fresh memory").

/** jsonb's binary input format: a version byte, then the text (PostgreSQL's jsonb_recv). */
const JSONB_VERSION = 1;
const COMMA = 0x2c;
const OPEN = 0x5b;
const CLOSE = 0x5d;

/**
 * The largest parameter written into the reused buffer: it stays allocated (and resident) once grown, so a rare huge
 * statement gets a buffer of its own instead.
 */
const MAX_REUSED_BYTES = 16 * 1024 * 1024;
let reused = Buffer.allocUnsafe(0);

/**
 * A JSON array of the given element texts, as the value of a jsonb parameter (`${rows}::jsonb`). node-pg sends it in
 * jsonb's binary form through its `toPostgres` hook; PGlite's jsonb serializer takes `toString()` (connection.ts).
 */
export class JsonbArray {
  /** Each element's JSON text. */
  constructor(readonly elements: readonly string[]) {}

  toString(): string {
    return `[${this.elements.join(',')}]`;
  }

  /**
   * node-pg calls this while writing the Bind message and copies the answer into the message at once, before any other
   * value is prepared (pg's `prepareValue`, its bind's value mapper), so one buffer serves every statement in turn.
   */
  toPostgres(): Buffer {
    let bytes = 3 + Math.max(0, this.elements.length - 1);
    for (const element of this.elements) bytes += Buffer.byteLength(element);
    let buffer: Buffer;
    if (bytes <= reused.length) buffer = reused;
    else if (bytes <= MAX_REUSED_BYTES) {
      reused = Buffer.allocUnsafe(Math.min(MAX_REUSED_BYTES, Math.max(bytes, reused.length * 2)));
      buffer = reused;
    } else buffer = Buffer.allocUnsafe(bytes);
    let offset = 0;
    buffer[offset++] = JSONB_VERSION;
    buffer[offset++] = OPEN;
    for (let i = 0; i < this.elements.length; i++) {
      if (i > 0) buffer[offset++] = COMMA;
      offset += buffer.write(this.elements[i] as string, offset);
    }
    buffer[offset++] = CLOSE;
    return buffer.subarray(0, offset);
  }
}
