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
