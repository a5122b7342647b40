import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { detailsOf, summarize, validationError } from './validation';

const schema = z.object({
  name: z.string().min(2).max(4),
  count: z.int().min(1).max(10),
  tags: z.array(z.string()).max(2),
  kind: z.enum(['a', 'b']),
  nested: z.object({ id: z.string() }).optional(),
});

function detailsFor(input: unknown) {
  const result = schema.safeParse(input);
  if (result.success) throw new Error('expected a failure');
  return detailsOf(result.error.issues);
}

describe('detailsOf', () => {
  it('describes each problem with its path', () => {
    expect(detailsFor({ name: 'x', count: 11, tags: ['a', 'b', 'c'], kind: 'c', nested: { id: 1 } })).toEqual([
      { path: 'name', message: 'must contain at least 2 characters' },
      { path: 'count', message: 'must be at most 10' },
      { path: 'tags', message: 'must contain at most 2 items' },
      { path: 'kind', message: 'must be one of "a", "b"' },
      { path: 'nested.id', message: 'expected string' },
    ]);
  });

  it('says "is required" for missing fields', () => {
    expect(detailsFor({ name: 'abc', tags: [], kind: 'a' })).toEqual([{ path: 'count', message: 'is required' }]);
  });

  it('prefixes paths', () => {
    const result = z.object({ a: z.string() }).safeParse({});
    expect(detailsOf(result.error!.issues, ['events', 3])).toEqual([{ path: 'events.3.a', message: 'is required' }]);
  });
});

describe('summarize', () => {
  it('reads "path: message" and counts the rest', () => {
    expect(summarize([])).toBe('invalid input');
    expect(summarize([{ path: 'events', message: 'must contain at most 50 items' }])).toBe(
      'events: must contain at most 50 items',
    );
    expect(summarize([{ path: '', message: 'expected object' }])).toBe('expected object');
    expect(
      summarize([
        { path: 'a', message: 'is required' },
        { path: 'b', message: 'is required' },
        { path: 'c', message: 'is required' },
      ]),
    ).toBe('a: is required (and 2 more)');
  });
});

describe('validationError', () => {
  it('is a VALIDATION_FAILED AppError with details', () => {
    const details = [{ path: 'limit', message: 'must be at most 100' }];
    const error = validationError(details);
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toBe('limit: must be at most 100');
    expect(error.toBody()).toEqual({ code: 'VALIDATION_FAILED', message: 'limit: must be at most 100', details });
  });
});
