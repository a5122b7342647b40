// Browser and operating system from a user agent, read by bowser (a maintained parser: user agents change every few
// weeks, and regexes of our own would fall behind). Zod-free, for the dashboard as much as the server.
import Bowser from 'bowser';

export interface UserAgentSummary {
  /** `Chrome 131`, `Safari 18.1`, or `Unknown browser`. */
  browser: string;
  /** `Windows 10`, `iOS 18.1`, `macOS Catalina`, or `Unknown OS`. */
  os: string;
}

/** Major version only for browsers (their minor versions are noise in a breakdown). */
function majorVersion(version: string | undefined): string {
  return version?.split('.', 1)[0] ?? '';
}

const UNKNOWN: UserAgentSummary = { browser: 'Unknown browser', os: 'Unknown OS' };

export function describeUserAgent(userAgent: string | null | undefined): UserAgentSummary {
  // bowser throws on an empty string.
  if (!userAgent?.trim()) return UNKNOWN;
  const parsed = Bowser.parse(userAgent);
  const browser = parsed.browser.name
    ? `${parsed.browser.name} ${majorVersion(parsed.browser.version)}`.trim()
    : 'Unknown browser';
  const osName = parsed.os.name
    ? `${parsed.os.name} ${parsed.os.versionName ?? parsed.os.version ?? ''}`.trim()
    : 'Unknown OS';
  return { browser, os: osName };
}
