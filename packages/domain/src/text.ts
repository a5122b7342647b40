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

/** Depth of nested objects and arrays; stops counting once past `limit` so hostile input costs little. */
export function nestingDepth(value: unknown, limit: number): number {
  if (value === null || typeof value !== 'object') return 0;
  if (limit <= 0) return 1;
  let deepest = 0;
  for (const child of Object.values(value)) {
    const depth = nestingDepth(child, limit - 1);
    if (depth > deepest) deepest = depth;
    if (deepest >= limit) break;
  }
  return deepest + 1;
}

// PostgreSQL text and jsonb cannot hold U+0000, and UTF-8 cannot hold a lone surrogate.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');

export function isStorableText(text: string): boolean {
  return !UNSTORABLE.test(text);
}

export const UNSTORABLE_MESSAGE = 'contains a NUL character or an unpaired surrogate';

/** NUL removed, lone surrogates replaced by U+FFFD: what an event says is kept, in a form the database takes. */
export function storableText(text: string): string {
  return isStorableText(text) ? text : text.replace(UNSTORABLE_ALL, (char) => (char === '\u0000' ? '' : '\ufffd'));
}

/** Whether any string or key in a JSON value needs `storableText`; allocates nothing. Call after the nesting check. */
function hasUnstorableText(value: unknown): boolean {
  if (typeof value === 'string') return !isStorableText(value);
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(hasUnstorableText);
  for (const key in value) {
    if (!isStorableText(key) || hasUnstorableText((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

/**
 * The value with every string and key made storable: the value itself when nothing needs it (almost always),
 * otherwise a copy. Call after the nesting check: it recurses.
 */
export function storableJson(value: unknown): unknown {
  return hasUnstorableText(value) ? storableCopy(value) : value;
}

function storableCopy(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.map(storableCopy);
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      // defineProperty, not assignment: a "__proto__" key stays a plain key instead of replacing the prototype.
      Object.defineProperty(copy, storableText(key), { value: storableCopy(child), enumerable: true, writable: true, configurable: true });
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
