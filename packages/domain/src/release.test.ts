import { describe, expect, it } from 'vitest';
import { releaseVersionProblem, shortReleaseVersion } from './release';

describe('release versions', () => {
  it('accepts what Sentry accepts, @ and + included', () => {
    for (const version of ['shop@1.0.0', '1.0.0+build.7', 'a', 'x'.repeat(200), 'latest-2', '...'])
      expect(releaseVersionProblem(version)).toBeUndefined();
  });
  it('refuses empty, long, path-breaking and reserved versions, saying why', () => {
    expect(releaseVersionProblem('')).toBe('must not be empty');
    expect(releaseVersionProblem('x'.repeat(201))).toMatch(/200/);
    for (const version of ['a/b', 'a\\b', 'a\nb', 'a\tb']) expect(releaseVersionProblem(version)).toMatch(/slash/);
    for (const version of ['.', '..', 'latest']) expect(releaseVersionProblem(version)).toMatch(/must not be/);
    expect(releaseVersionProblem(' 1.0')).toMatch(/whitespace/);
  });
  it('shortens package@version and commit hashes as Sentry shows them', () => {
    expect(shortReleaseVersion('shop@1.0.0')).toBe('1.0.0');
    expect(shortReleaseVersion('1.0.0')).toBe('1.0.0');
    expect(shortReleaseVersion('a'.repeat(40))).toBe('a'.repeat(12));
  });
});
