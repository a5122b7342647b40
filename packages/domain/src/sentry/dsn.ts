// A Sentry DSN: `<scheme>://<publicKey>@<host>[/<path>]/<projectId>`, what a Sentry SDK is configured with.
export const publicKeyPattern = /^[0-9a-f]{32}$/;

/** The app's DSN under the collector's public address (`PUBLIC_URL`); a path in it (a proxy's prefix) is kept. */
export function sentryDsn(publicUrl: string, publicKey: string, projectId: number): string {
  const base = new URL(publicUrl);
  const path = base.pathname.replace(/\/+$/, '');
  return `${base.protocol}//${publicKey}@${base.host}${path}/${projectId}`;
}

/** The key and project a DSN names, or undefined when it is not a DSN. */
export function parseDsn(dsn: string): { publicKey: string; projectId: string } | undefined {
  let url: URL;
  try {
    url = new URL(dsn);
  } catch {
    return undefined;
  }
  const projectId = url.pathname.split('/').at(-1);
  if (!url.username || !projectId) return undefined;
  return { publicKey: decodeURIComponent(url.username), projectId };
}
