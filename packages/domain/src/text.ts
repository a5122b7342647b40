// Byte-bounded truncation: the contract's limits are in KiB, and a cut must not split a character.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function truncateUtf8(text: string, maxBytes: number): string {
  // A UTF-16 code unit is at most 3 UTF-8 bytes: most strings never need encoding.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // Step back over continuation bytes (10xxxxxx) to the start of a character.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return decoder.decode(bytes.subarray(0, end));
}

// PostgreSQL text and jsonb cannot hold U+0000, and UTF-8 cannot hold a lone surrogate.
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is exactly what this looks for
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');
// String.prototype.isWellFormed (Node 20, browsers since 2023) says "no lone surrogate" natively, several times faster
// than the pattern; older browsers (the dashboard imports these rules) keep the pattern.
const hasWellFormed = typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function';

export function isStorableText(text: string): boolean {
  if (hasWellFormed)
    return text.indexOf('\u0000') === -1 && (text as string & { isWellFormed(): boolean }).isWellFormed();
  return !UNSTORABLE.test(text);
}

export const UNSTORABLE_MESSAGE = 'contains a NUL character or an unpaired surrogate';

/** NUL removed, lone surrogates replaced by U+FFFD: what an event says is kept, in a form the database takes. */
export function storableText(text: string): string {
  return isStorableText(text) ? text : text.replace(UNSTORABLE_ALL, (char) => (char === '\u0000' ? '' : '\ufffd'));
}

/** What one walk over a parsed JSON value found: see scanJson. */
export interface JsonScan {
  /** Objects and arrays nest deeper than the limit (the value itself is depth 1). */
  tooDeep: boolean;
  /** Some string or key needs `storableText`. */
  unstorable: boolean;
}

/**
 * One walk over a parsed JSON value, for the two things judging must know before reading it: whether it nests deeper
 * than `maxDepth`, and whether any string or key needs `storableText`. Allocates nothing, and stops descending past
 * `maxDepth`, so hostile input costs little.
 */
export function scanJson(value: unknown, maxDepth: number): JsonScan {
  const scan = { tooDeep: false, unstorable: false };
  scan.tooDeep = deeperThan(value, maxDepth, scan);
  return scan;
}

function deeperThan(value: unknown, levelsLeft: number, scan: JsonScan): boolean {
  if (typeof value === 'string') {
    if (!scan.unstorable && !isStorableText(value)) scan.unstorable = true;
    return false;
  }
  if (value === null || typeof value !== 'object') return false;
  if (levelsLeft === 0) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (deeperThan(value[i], levelsLeft - 1, scan)) return true;
    return false;
  }
  for (const key in value) {
    if (!scan.unstorable && !isStorableText(key)) scan.unstorable = true;
    if (deeperThan((value as Record<string, unknown>)[key], levelsLeft - 1, scan)) return true;
  }
  return false;
}

/** The value with every string and key made storable, as a copy. Call after the nesting check: it recurses. */
export function storableCopy(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.map(storableCopy);
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      // defineProperty, not assignment: a "__proto__" key stays a plain key instead of replacing the prototype.
      Object.defineProperty(copy, storableText(key), {
        value: storableCopy(child),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  }
  return value;
}

/**
 * Empties every object or array found at `maxDepth` (the root is depth 1), without recursion.
 * Bodies can nest a million levels within 1 MiB; past this point nothing is read, and what was cut still
 * counts one level deeper than allowed, so depth rules downstream see it as too deep.
 */
export function pruneNesting(root: unknown, maxDepth: number): void {
  const stack: Array<[Record<string, unknown>, number]> = [];
  if (root !== null && typeof root === 'object') stack.push([root as Record<string, unknown>, 1]);
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [Record<string, unknown>, number];
    for (const key of Object.keys(node)) {
      const child = node[key];
      if (child === null || typeof child !== 'object') continue;
      if (depth + 1 >= maxDepth) node[key] = Array.isArray(child) ? [] : {};
      else stack.push([child as Record<string, unknown>, depth + 1]);
    }
  }
}
