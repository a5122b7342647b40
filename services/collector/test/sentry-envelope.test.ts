// The Sentry body reader on its own: real SDK envelopes, then hostile ones. Every failure must be the contract's 4xx.
import { readdirSync, readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { brotliCompressSync, constants, deflateSync, gzipSync } from 'node:zlib';
import { AppError, sentryLimits } from '@collector/domain';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EnvelopeParser,
  nestsDeeperThan,
  readEnvelope,
  readStoreBody,
  type SentryEnvelope,
} from '../src/sentry/envelope';

const fixtures = new URL('./fixtures/sentry/', import.meta.url);

/** A request as the reader sees one: a byte stream with headers, delivered in chunks of `chunkBytes`. */
function request(
  body: Uint8Array | string,
  headers: Record<string, string> = {},
  chunkBytes = 64 * 1024,
): IncomingMessage {
  const bytes = Buffer.from(body);
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunkBytes) chunks.push(bytes.subarray(i, i + chunkBytes));
  return Object.assign(Readable.from(chunks, { objectMode: false }), {
    headers,
    complete: true,
  }) as unknown as IncomingMessage;
}

async function failure(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the body to be refused');
}

const refused = async (promise: Promise<unknown>) => (await failure(promise)).code;

const line = (value: unknown) => `${JSON.stringify(value)}\n`;
const eventItem = (event: Record<string, unknown>) => line({ type: 'event' }) + line(event);
const envelope = (...items: string[]) =>
  line({ event_id: 'aaaabbbbccccddddeeeeffff00001111', sent_at: '2026-11-23T00:00:00Z' }) + items.join('');

describe('envelopes the real SDKs sent', () => {
  const files = readdirSync(fixtures).filter((file) => /\.envelope(\.gz)?$/.test(file));

  it.each(files)('%s', async (file) => {
    const body = readFileSync(new URL(file, fixtures));
    const result = await readEnvelope(request(body, file.endsWith('.gz') ? { 'content-encoding': 'gzip' } : {}, 1000));
    const text = (file.endsWith('.gz') ? (await import('node:zlib')).gunzipSync(body) : body).toString();
    const expectedEvents = text.split('\n').filter((row) => row === '{"type":"event"}').length;
    expect(result.events).toHaveLength(expectedEvents);
    expect(result.events.length + result.skippedItems).toBeGreaterThan(0);
    for (const { eventId, event } of result.events) expect(eventId).toBe(event.event_id);
  });

  it('python sentry-sdk: a gzipped JSON event to /store/', async () => {
    const result = await readStoreBody(
      request(readFileSync(new URL('python-01.store.gz', fixtures)), { 'content-encoding': 'gzip' }),
    );
    expect(result.events[0]?.event.platform).toBe('python');
  });
});

describe('items', () => {
  it('reads items by length, binary and newlines included, and by line without one', async () => {
    const attachment = Buffer.from([0, 1, 2, 10, 10, 255, 254, 10]);
    const body = Buffer.concat([
      Buffer.from(envelope() + line({ type: 'attachment', length: attachment.length, filename: 'core.bin' })),
      attachment,
      Buffer.from(`\n${line({ type: 'session' })}${line({ sid: 'x' })}`),
      Buffer.from(`${line({ type: 'event', length: Buffer.byteLength('{"message":"hé"}') })}{"message":"hé"}`),
    ]);
    for (const chunkBytes of [1, 3, 1024]) {
      const result = await readEnvelope(request(body, {}, chunkBytes));
      expect(result.skippedItems).toBe(2);
      expect(result.events.map(({ event }) => event.message)).toEqual(['hé']);
    }
  });

  it('skips types it does not know and goes on; 10,000 items are read at once', async () => {
    const skipped = line({ type: 'transaction' }) + line({ spans: [] });
    const body = envelope(
      skipped.repeat(5_000),
      line({ type: 'a_type_not_yet_invented', length: 3 }),
      'abc\n',
      skipped.repeat(4_998),
      eventItem({ message: 'kept' }),
    );
    const started = performance.now();
    const result = await readEnvelope(request(body));
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(result.skippedItems).toBe(9_999);
    expect(result.events).toHaveLength(1);
  });

  it('an envelope without items answers no event; blank lines between items are nothing', async () => {
    expect((await readEnvelope(request(line({})))).events).toEqual([]);
    expect((await readEnvelope(request('{}'))).events).toEqual([]);
    expect((await readEnvelope(request(envelope('\n\r\n', eventItem({ message: 'x' }))))).events).toHaveLength(1);
  });

  it("the event id: the event's, else the envelope header's, else a new one", async () => {
    expect((await readEnvelope(request(envelope(eventItem({ event_id: 'own' }))))).events[0]?.eventId).toBe('own');
    expect((await readEnvelope(request(envelope(eventItem({ message: 'x' }))))).events[0]?.eventId).toBe(
      'aaaabbbbccccddddeeeeffff00001111',
    );
    const generated = (await readEnvelope(request(line({}) + eventItem({ message: 'x' })))).events[0]?.eventId;
    expect(generated).toMatch(/^[0-9a-f]{32}$/);
    expect((await readStoreBody(request('{"message":"x"}'))).events[0]?.eventId).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe("hostile envelopes get the contract's 4xx", () => {
  it('an empty body, an unparseable header, an event that is not JSON or not UTF-8: 400 INVALID_JSON', async () => {
    const cases: Array<string | Buffer> = [
      '',
      'not json\n',
      '[1,2]\n',
      envelope('{"type":"event"\n'),
      envelope(line({ type: 'event' }), '{"message": \n'),
      envelope(line({ type: 'event' }), '"a string"\n'),
      Buffer.concat([
        Buffer.from(envelope(line({ type: 'event' }))),
        Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d, 0x0a]),
      ]),
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{}\n')]),
    ];
    for (const body of cases) expect(await refused(readEnvelope(request(body)))).toBe('INVALID_JSON');
  });

  it('lengths that lie: longer than the body, shorter than the payload, not a number', async () => {
    const payload = '{"message":"x"}';
    for (const items of [
      line({ type: 'event', length: 500 }) + payload,
      `${line({ type: 'attachment', length: 10_000 })}short`,
      `${line({ type: 'event', length: 5 })}${payload}\n`,
      `${line({ type: 'event', length: -1 })}${payload}\n`,
      `${line({ type: 'event', length: '15' })}${payload}\n`,
    ]) {
      expect(await refused(readEnvelope(request(envelope(items))))).toBe('INVALID_JSON');
    }
  });

  it('over 1 MiB on the wire, an event item over 1 MiB, a header line over its bound: 413', async () => {
    const big = 'x'.repeat(sentryLimits.eventBytes);
    expect(await refused(readEnvelope(request(envelope(eventItem({ message: big })))))).toBe('PAYLOAD_TOO_LARGE');
    expect(
      await refused(readEnvelope(request(envelope(line({ type: 'event', length: sentryLimits.eventBytes + 1 }))))),
    ).toBe('PAYLOAD_TOO_LARGE');
    expect(await refused(readEnvelope(request(`{"a":"${'x'.repeat(sentryLimits.headerBytes)}"}\n`)))).toBe(
      'PAYLOAD_TOO_LARGE',
    );
    const declared = request('{}', { 'content-length': String(sentryLimits.wireBytes + 1) });
    expect(await refused(readEnvelope(declared))).toBe('PAYLOAD_TOO_LARGE');
    // A big attachment is skipped, not kept; over the wire limit it is refused all the same.
    const attachment =
      line({ type: 'attachment', length: sentryLimits.wireBytes }) + 'a'.repeat(sentryLimits.wireBytes);
    expect(await refused(readEnvelope(request(envelope(attachment))))).toBe('PAYLOAD_TOO_LARGE');
  });

  // A compressed body that declares a small Content-Length is decompressed in one call (up to 1 MiB out, else it
  // streams after all); one without, or a larger one, streams: every case below is read both ways.
  const compressed = (body: Uint8Array | string, encoding: string, declared: boolean) =>
    request(body, {
      'content-encoding': encoding,
      ...(declared && { 'content-length': String(Buffer.byteLength(body)) }),
    });

  it.each([true, false])(
    'gzip, deflate and brotli bombs stop at the decompressed limit, costing little (Content-Length: %s)',
    async (declared) => {
      const zeros = Buffer.alloc(sentryLimits.decodedBytes + 12 * 1024 * 1024);
      const bombs: Array<[string, Buffer]> = [
        ['gzip', gzipSync(zeros, { level: 9 })],
        ['deflate', deflateSync(zeros, { level: 9 })],
        ['br', brotliCompressSync(zeros, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } })],
      ];
      for (const [encoding, bomb] of bombs) {
        expect(bomb.length).toBeLessThan(sentryLimits.wireBytes);
        const heapBefore = process.memoryUsage().heapUsed;
        const started = performance.now();
        expect(await refused(readEnvelope(compressed(bomb, encoding, declared)))).toBe('PAYLOAD_TOO_LARGE');
        expect(performance.now() - started).toBeLessThan(3_000);
        expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 1024 * 1024);
      }
      // /store/ holds one event: its decompressed limit is the event's.
      const storeBomb = gzipSync(Buffer.alloc(2 * sentryLimits.eventBytes));
      expect(await refused(readStoreBody(compressed(storeBomb, 'gzip', declared)))).toBe('PAYLOAD_TOO_LARGE');
      const storeEdge = JSON.stringify({ message: 'x'.repeat(sentryLimits.eventBytes - 20) }).padEnd(
        sentryLimits.eventBytes,
      );
      expect((await readStoreBody(compressed(gzipSync(storeEdge), 'gzip', declared))).keptBytes).toBe(
        sentryLimits.eventBytes,
      );
      expect(await refused(readStoreBody(compressed(gzipSync(`${storeEdge} `), 'gzip', declared)))).toBe(
        'PAYLOAD_TOO_LARGE',
      );
    },
  );

  it.each([true, false])(
    'a corrupt or truncated compressed body: 400; an unknown encoding: 415 (Content-Length: %s)',
    async (declared) => {
      const gz = gzipSync(Buffer.from(envelope(eventItem({ message: 'x' }))));
      expect(await refused(readEnvelope(compressed(gz.subarray(0, gz.length - 10), 'gzip', declared)))).toBe(
        'INVALID_JSON',
      );
      expect(await refused(readEnvelope(compressed('not gzip at all', 'gzip', declared)))).toBe('INVALID_JSON');
      expect(await refused(readEnvelope(compressed(gz, 'zstd', declared)))).toBe('UNSUPPORTED_MEDIA_TYPE');
      const ok = await readEnvelope(compressed(gz, 'gzip', declared));
      expect(ok.events).toHaveLength(1);
    },
  );

  it.each([true, false])(
    'a small compressed envelope that decompresses past 1 MiB is read whole (Content-Length: %s)',
    async (declared) => {
      // An event, then a 5 MiB attachment of zeros (skipped): ~5 KiB gzipped, deflated or brotli'd.
      const attachment = `${line({ type: 'attachment', length: 5 * 1024 * 1024 })}${'\0'.repeat(5 * 1024 * 1024)}\n`;
      const body = Buffer.from(envelope(eventItem({ message: 'before the attachment' }), attachment));
      for (const [encoding, compress] of [
        ['gzip', gzipSync],
        ['deflate', deflateSync],
        ['br', brotliCompressSync],
      ] as const) {
        const sent = compress(body);
        expect(sent.length).toBeLessThan(64 * 1024);
        const read = await readEnvelope(compressed(sent, encoding, declared));
        expect(read.events.map(({ event }) => event.message)).toEqual(['before the attachment']);
        expect(read.skippedItems).toBe(1);
      }
    },
  );

  it('an event nested past the limit, or two events in one envelope: 400 VALIDATION_FAILED', async () => {
    const deep = `${'['.repeat(sentryLimits.eventNestingDepth)}${']'.repeat(sentryLimits.eventNestingDepth)}`;
    expect(
      (await readEnvelope(request(envelope(line({ type: 'event' }), `{"extra":${deep.slice(1, -1)}}\n`)))).events,
    ).toHaveLength(1);
    expect(await refused(readEnvelope(request(envelope(line({ type: 'event' }), `{"extra":${deep}}\n`))))).toBe(
      'VALIDATION_FAILED',
    );
    const millionDeep = `{"a":${'['.repeat(500_000)}${']'.repeat(500_000)}}`;
    expect(await refused(readStoreBody(request(millionDeep)))).toBe('VALIDATION_FAILED');
    expect(
      await refused(readEnvelope(request(envelope(eventItem({ message: 'a' }), eventItem({ message: 'b' }))))),
    ).toBe('VALIDATION_FAILED');
  });

  it('the nesting scan skips brackets inside strings, escaped quotes included', () => {
    expect(nestsDeeperThan('{"a":"[[[[[[\\"[[[["}', 2)).toBe(false);
    expect(nestsDeeperThan('{"a":[[1]]}', 2)).toBe(true);
  });

  it('the nesting scan agrees with a character-by-character one, on JSON and on any text', () => {
    // The plain scan the fast one replaced: a backslash in a string skips the next character.
    const reference = (text: string, max: number) => {
      let depth = 0;
      let inString = false;
      for (let i = 0; i < text.length; i++) {
        const code = text.charCodeAt(i);
        if (inString) {
          if (code === 0x5c) i++;
          else if (code === 0x22) inString = false;
        } else if (code === 0x22) inString = true;
        else if (code === 0x7b || code === 0x5b) {
          if (++depth > max) return true;
        } else if (code === 0x7d || code === 0x5d) depth--;
      }
      return false;
    };
    const texts = fc.oneof(
      fc.json({ depthSize: 'medium' }),
      fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', '\\', 'a', ':', ',') }),
    );
    fc.assert(
      fc.property(texts, fc.integer({ min: 0, max: 8 }), (text, max) => {
        expect(nestsDeeperThan(text, max)).toBe(reference(text, max));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('fuzzed', () => {
  function parseWhole(body: Buffer, splits: number[]): SentryEnvelope | AppError {
    const parser = new EnvelopeParser();
    try {
      let start = 0;
      for (const split of [...splits.map((at) => at % (body.length + 1)).sort((a, b) => a - b), body.length]) {
        parser.push(body.subarray(start, Math.max(start, split)));
        start = Math.max(start, split);
      }
      return parser.end();
    } catch (error) {
      if (error instanceof AppError) return error;
      throw error;
    }
  }
  const normalise = (outcome: SentryEnvelope | AppError) =>
    outcome instanceof AppError
      ? { code: outcome.code }
      : { ...outcome, events: outcome.events.map(({ event }) => event) };

  const itemArbitrary = fc.oneof(
    fc
      .record({
        type: fc.constantFrom('event', 'session', 'attachment', 'client_report', 'feedback', 'user_report', 'x'),
        // Any JSON, or the shapes that feedback, user_report and client_report items take (each read as any type).
        payload: fc.oneof(
          fc.jsonValue({ maxDepth: 3 }),
          fc.string().map((message) => ({ event_id: 'a'.repeat(32), contexts: { feedback: { message } } })),
          fc.string().map((comments) => ({ event_id: 'b'.repeat(32), name: 'n', comments })),
          fc
            .nat()
            .map((quantity) => ({ discarded_events: [{ reason: 'queue_overflow', category: 'error', quantity }] })),
        ),
        sized: fc.boolean(),
        lie: fc.integer({ min: -3, max: 3 }),
      })
      .map(({ type, payload, sized, lie }) => {
        const text = JSON.stringify(payload) ?? 'null';
        const length = Buffer.byteLength(text) + (sized ? lie : 0);
        return Buffer.from(`${JSON.stringify(sized ? { type, length } : { type })}\n${text}\n`);
      }),
    fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
  );

  it('answers every body with an envelope or a 4xx AppError, the same whatever the chunking', () => {
    fc.assert(
      fc.property(fc.array(itemArbitrary, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 6 }), (items, splits) => {
        const body = Buffer.concat([Buffer.from('{"event_id":"e1"}\n'), ...items]);
        const whole = parseWhole(body, []);
        const chunked = parseWhole(body, splits);
        expect(normalise(chunked)).toEqual(normalise(whole));
        if (whole instanceof AppError)
          expect(['INVALID_JSON', 'VALIDATION_FAILED', 'PAYLOAD_TOO_LARGE']).toContain(whole.code);
      }),
      { numRuns: 2_000 },
    );
  });
});
