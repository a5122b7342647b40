import { describe, expect, it } from 'vitest';
import { appKeyPattern, appTypes } from './app';
import { appNameSchema, appTypeSchema } from './app-schemas';

describe('appNameSchema', () => {
  it('trims and accepts 1 to 100 characters', () => {
    expect(appNameSchema.parse('  Shop  ')).toBe('Shop');
    expect(appNameSchema.parse('x')).toBe('x');
    expect(appNameSchema.parse('n'.repeat(100))).toBe('n'.repeat(100));
    expect(appNameSchema.parse(`  ${'n'.repeat(100)}  `)).toBe('n'.repeat(100));
  });

  it('rejects empty, blank and over-long names', () => {
    expect(appNameSchema.safeParse('').success).toBe(false);
    expect(appNameSchema.safeParse('   ').success).toBe(false);
    expect(appNameSchema.safeParse('n'.repeat(101)).success).toBe(false);
  });
});

describe('appTypeSchema', () => {
  it('accepts the contract types only', () => {
    expect(appTypes).toEqual(['web', 'node', 'ios', 'android', 'react-native', 'flutter', 'electron', 'other']);
    for (const type of appTypes) expect(appTypeSchema.parse(type)).toBe(type);
    for (const type of ['Web', 'browser', '', 'react_native'])
      expect(appTypeSchema.safeParse(type).success).toBe(false);
  });
});

describe('appKeyPattern', () => {
  it('matches <type>_<random id>', () => {
    expect(appKeyPattern.test('web_0123456789abcdef')).toBe(true);
    expect(appKeyPattern.test('react-native_AbCdEf0123456789XyZ')).toBe(true);
    expect(appKeyPattern.test('web_short')).toBe(false);
    expect(appKeyPattern.test('web-0123456789abcdef')).toBe(false);
    expect(appKeyPattern.test('web_0123456789abcdef:x')).toBe(false);
  });
});
