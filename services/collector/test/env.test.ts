import { describe, expect, it } from 'vitest';
import { parseEnv } from '../src/env';

describe('PUBLIC_URL', () => {
  it('is optional: unset, the server uses http://localhost:<the port bound>', () => {
    expect(parseEnv({}).publicUrl).toBeUndefined();
    expect(parseEnv({ PUBLIC_URL: '' }).publicUrl).toBeUndefined();
  });

  it('takes an http or https URL, a path included', () => {
    expect(parseEnv({ PUBLIC_URL: 'https://errors.example.com/collector' }).publicUrl).toBe('https://errors.example.com/collector');
  });

  it('refuses anything else, naming the variable', () => {
    expect(() => parseEnv({ PUBLIC_URL: 'errors.example.com' })).toThrow(/PUBLIC_URL/);
    expect(() => parseEnv({ PUBLIC_URL: 'ftp://errors.example.com' })).toThrow(/PUBLIC_URL/);
  });
});
