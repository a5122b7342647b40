import { describe, expect, it } from 'vitest';
import { parseDsn, sentryDsn } from './dsn';

describe('DSN', () => {
  const key = '0123456789abcdef0123456789abcdef';

  it('is <scheme>://<publicKey>@<host>/<projectId> under PUBLIC_URL, a proxy prefix kept', () => {
    expect(sentryDsn('http://localhost:3100', key, 7)).toBe(`http://${key}@localhost:3100/7`);
    expect(sentryDsn('https://errors.example.com/', key, 7)).toBe(`https://${key}@errors.example.com/7`);
    expect(sentryDsn('https://example.com/collector/', key, 7)).toBe(`https://${key}@example.com/collector/7`);
  });

  it('parses back into its key and project', () => {
    expect(parseDsn(sentryDsn('https://example.com/collector', key, 12))).toEqual({ publicKey: key, projectId: '12' });
    expect(parseDsn('not a dsn')).toBeUndefined();
    expect(parseDsn('https://example.com/12')).toBeUndefined();
  });
});
