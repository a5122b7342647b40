import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStorableText, scanJson, truncateUtf8 } from './text';

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

  // Each row: a text, and what is left of it at each byte limit that falls inside or just past one of its characters.
  it.each([
    ['a 2-byte character', 'ééé', { 6: 'ééé', 5: 'éé', 4: 'éé', 3: 'é', 1: '' }],
    ['a 3-byte CJK character', '日本語', { 9: '日本語', 8: '日本', 7: '日本', 6: '日本', 5: '日', 2: '' }],
    ['a 4-byte emoji (a surrogate pair)', '😀😀', { 8: '😀😀', 7: '😀', 5: '😀', 4: '😀', 3: '' }],
    ['a 4-byte emoji after an ASCII letter', 'a😀', { 4: 'a' }],
  ])('never splits %s', (_name, text, cuts: Record<number, string>) => {
    for (const [maxBytes, cut] of Object.entries(cuts))
      expect(truncateUtf8(text, Number(maxBytes)), maxBytes).toBe(cut);
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

describe('scanJson', () => {
  const tooDeep = (value: unknown, maxDepth: number) => scanJson(value, maxDepth).tooDeep;
  const chain = (depth: number) => {
    let value: unknown[] = [];
    for (let i = 1; i < depth; i++) value = [value];
    return value;
  };

  it('never finds scalars and null too deep', () => {
    for (const value of [null, undefined, 42, 'text', true]) expect(tooDeep(value, 0)).toBe(false);
  });

  it('counts flat objects and arrays, empty or not, as depth 1', () => {
    for (const value of [{}, [], { a: 1, b: 'x', c: null }, [1, 2, 3]]) {
      expect(tooDeep(value, 1)).toBe(false);
      expect(tooDeep(value, 0)).toBe(true);
    }
  });

  it('follows the deepest branch of nested values', () => {
    const value = { shallow: { x: 1 }, deep: { a: { b: { c: [1] } } } };
    expect(tooDeep(value, 5)).toBe(false);
    expect(tooDeep(value, 4)).toBe(true);
    expect(tooDeep([1, [2, [3, [4]]], {}], 4)).toBe(false);
    expect(tooDeep([1, [2, [3, [4]]], {}], 3)).toBe(true);
  });

  it('is exact at the limit', () => {
    expect(tooDeep(chain(16), 16)).toBe(false);
    expect(tooDeep(chain(17), 16)).toBe(true);
  });

  it('stops past the limit on a 100,000-deep array or object chain without overflowing the stack', () => {
    expect(tooDeep(chain(100_000), 16)).toBe(true);
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 100_000; i++) deep = { child: deep };
    expect(tooDeep(deep, 16)).toBe(true);
  });

  it('finds unstorable text in strings and keys at any depth within the limit', () => {
    expect(scanJson({ a: ['fine', { b: 'caf\u00e9 \ud83d\ude00' }] }, 16).unstorable).toBe(false);
    expect(scanJson({ a: ['fine', { b: 'nul\u0000' }] }, 16).unstorable).toBe(true);
    expect(scanJson({ a: { 'lone\ud800': 1 } }, 16).unstorable).toBe(true);
    expect(scanJson(['\udc00 first'], 16).unstorable).toBe(true);
    // Both findings at once: one walk reports depth and text together.
    expect(scanJson([['\u0000', chain(20)]], 16)).toEqual({ tooDeep: true, unstorable: true });
  });
});

describe('isStorableText', () => {
  // The definition, code unit by code unit: no NUL, every surrogate in a high-low pair.
  const reference = (text: string) => {
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === 0) return false;
      if (code >= 0xd800 && code <= 0xdbff) {
        const next = text.charCodeAt(i + 1);
        if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
        i++;
      } else if (code >= 0xdc00 && code <= 0xdfff) return false;
    }
    return true;
  };

  it('agrees with the definition on any UTF-16 text', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
          maxLength: 40,
        }),
        (text) => {
          expect(isStorableText(text)).toBe(reference(text));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
