// A release's version, as Sentry accepts it (sentry/models/release.py is_valid_version): what sentry-cli, the bundler
// plugins and an event's `release` name. One rule for the API's paths and bodies.
import { eventFieldChars } from './limits';

/** Characters that would break a path segment or a line of output. */
const FORBIDDEN = /[/\\\r\n\t\f\v]/;
/** Names Sentry keeps for itself: path segments (`.`, `..`) and the alias of the newest release. */
const RESERVED = new Set(['.', '..', 'latest']);

/** Why a version is not one Sentry would accept; undefined when it is. */
export function releaseVersionProblem(version: string): string | undefined {
  if (version.length === 0) return 'must not be empty';
  if (version.length > eventFieldChars.release) return `must be at most ${eventFieldChars.release} characters`;
  if (version.trim() !== version) return 'must not start or end with whitespace';
  if (FORBIDDEN.test(version)) return 'must not contain a slash, a backslash, a newline or a tab';
  if (RESERVED.has(version)) return `must not be "${version}"`;
  return undefined;
}

/** Sentry's short form of a version: the part after `package@`, a 40-hex commit cut to 12. */
export function shortReleaseVersion(version: string): string {
  const at = version.indexOf('@');
  const rest = at > 0 && at < version.length - 1 ? version.slice(at + 1) : version;
  return /^[0-9a-f]{40}$/i.test(rest) ? rest.slice(0, 12) : rest;
}

/** Limits of what the release API keeps (Sentry's own where it has one). */
export const releaseLimits = {
  refChars: 200,
  urlChars: 2048,
  environmentChars: 64,
  deployNameChars: 64,
  /** Projects named in one request. */
  projects: 100,
  /** Releases per page of a list; Sentry's default and cap. */
  pageSize: 100,
  queryChars: 200,
} as const;
