import { describe, expect, it } from 'vitest';
import { nestingDepth, truncateUtf8 } from './text';

const utf8Length = (text: string) => new TextEncoder().encode(text).length;

describe('truncateUtf8', () => {
  it('returns ASCII text that fits unchanged', () => {
    expect(truncateUtf8('hello', 5)).toBe('hello');
    expect(truncateUtf8('hello', 100)).toBe('hello');
    expect(truncateUtf8('', 0)).toBe('');
  });

  it('cuts ASCII text at exactly maxBytes', () => {
    expect(truncateUtf8('hello world', 5)).toBe('hello');
    expect(truncateUtf8('abc', 0)).toBe('');
    expect(truncateUtf8('a'.repeat(10_000), 8192)).toBe('a'.repeat(8192));
  });

  it('keeps a multi-byte string whose byte length equals the limit', () => {
    // 'é' is 2 bytes, '€' 3 bytes, '😀' 4 bytes: 9 bytes in all, 4 UTF-16 units.
    expect(truncateUtf8('é€😀', 9)).toBe('é€😀');
  });

  it('never splits a 2-byte character', () => {
    expect(truncateUtf8('ééé', 6)).toBe('ééé');
    expect(truncateUtf8('ééé', 5)).toBe('éé');
    expect(truncateUtf8('ééé', 4)).toBe('éé');
    expect(truncateUtf8('ééé', 3)).toBe('é');
    expect(truncateUtf8('ééé', 1)).toBe('');
  });

  it('never splits a 3-byte CJK character', () => {
    expect(truncateUtf8('日本語', 9)).toBe('日本語');
    expect(truncateUtf8('日本語', 8)).toBe('日本');
    expect(truncateUtf8('日本語', 7)).toBe('日本');
    expect(truncateUtf8('日本語', 6)).toBe('日本');
    expect(truncateUtf8('日本語', 5)).toBe('日');
    expect(truncateUtf8('日本語', 2)).toBe('');
  });

  it('never splits a 4-byte emoji (a surrogate pair)', () => {
    expect(truncateUtf8('😀😀', 8)).toBe('😀😀');
    expect(truncateUtf8('😀😀', 7)).toBe('😀');
    expect(truncateUtf8('😀😀', 5)).toBe('😀');
    expect(truncateUtf8('😀😀', 4)).toBe('😀');
    expect(truncateUtf8('😀😀', 3)).toBe('');
    expect(truncateUtf8('a😀', 4)).toBe('a');
  });

  it('produces at most maxBytes and no replacement characters on long mixed text', () => {
    const text = 'aé日😀'.repeat(1000); // 10 bytes per repetition
    for (const max of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 1023, 8192]) {
      const cut = truncateUtf8(text, max);
      expect(utf8Length(cut)).toBeLessThanOrEqual(max);
      expect(cut).not.toContain('\uFFFD');
      expect(text.startsWith(cut)).toBe(true);
      // The cut is maximal: the next character would not have fitted.
      const next = text.slice(cut.length).codePointAt(0)!;
      expect(utf8Length(cut) + utf8Length(String.fromCodePoint(next))).toBeGreaterThan(max);
    }
  });
});

describe('nestingDepth', () => {
  it('is 0 for scalars and null', () => {
    expect(nestingDepth(null, 16)).toBe(0);
    expect(nestingDepth(undefined, 16)).toBe(0);
    expect(nestingDepth(42, 16)).toBe(0);
    expect(nestingDepth('text', 16)).toBe(0);
    expect(nestingDepth(true, 16)).toBe(0);
  });

  it('is 1 for flat objects and arrays, empty or not', () => {
    expect(nestingDepth({}, 16)).toBe(1);
    expect(nestingDepth([], 16)).toBe(1);
    expect(nestingDepth({ a: 1, b: 'x', c: null }, 16)).toBe(1);
    expect(nestingDepth([1, 2, 3], 16)).toBe(1);
  });

  it('counts the deepest branch of nested values', () => {
    expect(nestingDepth({ a: {} }, 16)).toBe(2);
    expect(nestingDepth({ a: [] }, 16)).toBe(2);
    expect(nestingDepth([[[]]], 16)).toBe(3);
    expect(nestingDepth({ shallow: { x: 1 }, deep: { a: { b: { c: [1] } } } }, 16)).toBe(5);
    expect(nestingDepth([1, [2, [3, [4]]], {}], 16)).toBe(4);
  });

  it('stops at limit + 1 on a 100,000-deep array without overflowing the stack', () => {
    let deep: unknown[] = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(nestingDepth(deep, 16)).toBe(17);
    expect(nestingDepth(deep, 10)).toBe(11);
    expect(nestingDepth(deep, 0)).toBe(1);
  });

  it('stops at limit + 1 on a 100,000-deep object chain', () => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 100_000; i++) deep = { child: deep };
    expect(nestingDepth(deep, 16)).toBe(17);
  });

  it('reports exact depth when the value is within the limit', () => {
    let value: unknown[] = [];
    for (let i = 1; i < 16; i++) value = [value];
    expect(nestingDepth(value, 17)).toBe(16);
  });
});
