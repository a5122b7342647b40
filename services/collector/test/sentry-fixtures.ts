// The captured SDK requests (fixtures/sentry), replayable against a DSN of this run.
import { readFileSync } from 'node:fs';

export interface Fixture {
  file: string;
  sdk: string;
  kind: 'envelope' | 'store';
  headers: Record<string, string>;
  body: Buffer;
}

const folder = new URL('./fixtures/sentry/', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('manifest.json', folder), 'utf8')) as {
  requests: Array<{ file: string; sdk: string; path: string; headers: Record<string, string> }>;
};

export const fixtures: Fixture[] = manifest.requests.map((request) => ({
  file: request.file,
  sdk: request.sdk,
  kind: request.path.includes('/store') ? 'store' : 'envelope',
  // What a client sends that matters here; the key and the project are this run's, given by the caller.
  headers: Object.fromEntries(
    Object.entries(request.headers).filter(([name]) => name === 'content-type' || name === 'content-encoding'),
  ),
  body: readFileSync(new URL(request.file, folder)),
}));

/** The path and key of an app's DSN. */
export function dsnParts(dsn: string): { projectId: string; publicKey: string } {
  const url = new URL(dsn);
  return { projectId: url.pathname.split('/').at(-1) as string, publicKey: url.username };
}
