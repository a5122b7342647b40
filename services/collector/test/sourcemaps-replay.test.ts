// Plays back what the real clients sent (fixtures/sentry-cli/uploads-*.json, recorded by sourcemaps-upload.test.ts
// with RECORD_FIXTURES=1): the same requests, bytes for bytes, into a fresh organization, get the same answers. The
// recordings keep the clients' release calls too (the vite plugin's), which other routes answer; only the upload API's
// requests are played here.
import { readFile } from 'node:fs/promises';
import { sentryArtifactPaths } from '@collector/api';
import { describe, expect, it } from 'vitest';
import { startTestServer } from './harness';
import type { RecordedRequest } from './sourcemaps';
import { uploadTeam } from './sourcemaps';

const server = await startTestServer();
const UPLOAD_PATHS = /^\/api\/0\/organizations\/\{org\}\/(chunk-upload|artifactbundle\/assemble)\/$/;

describe.each(['sentry-cli-2', 'sentry-cli-3', 'vite-plugin'])('the recording of %s', (name) => {
  it('replays with the answers it got', async () => {
    const recorded: RecordedRequest[] = JSON.parse(
      await readFile(new URL(`./fixtures/sentry-cli/uploads-${name}.json`, import.meta.url), 'utf8'),
    );
    const played = recorded.filter((request) => UPLOAD_PATHS.test(request.path));
    // Options, the first assemble (all chunks missing), the chunks, and the assemble that starts the assembly.
    expect(played.map((request) => `${request.method} ${request.path.split('/')[5]}`)).toEqual(
      expect.arrayContaining(['GET chunk-upload', 'POST chunk-upload', 'POST artifactbundle']),
    );
    const { org, token } = await uploadTeam(server);
    for (const request of played) {
      const path = request.path.replace('{org}', org.slug);
      const headers: Record<string, string> = { ...request.headers, authorization: `Bearer ${token}` };
      const body =
        request.base64 !== undefined
          ? Buffer.from(request.base64, 'base64')
          : request.json !== undefined
            ? JSON.stringify(request.json)
            : undefined;
      let reply = await fetch(`${server.url}${path}`, { method: request.method, headers, body });
      let answer = (await reply.json()) as { state?: string } | null;
      // The assembly runs in the background: a recorded `ok` may still be `assembling` when replayed at once.
      const wantsOk = (request.answer as { state?: string } | null)?.state === 'ok';
      for (let attempt = 0; wantsOk && answer?.state === 'assembling' && attempt < 100; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        reply = await fetch(`${server.url}${path}`, { method: request.method, headers, body });
        answer = (await reply.json()) as { state?: string } | null;
      }
      expect(reply.status, `${request.method} ${request.path}`).toBe(request.status);
      const expected = JSON.parse(
        JSON.stringify(request.answer).replaceAll('{PUBLIC_URL}', server.url).replaceAll('{org}', org.slug),
      );
      expect(answer, `${request.method} ${request.path}`).toEqual(expected);
    }
  });
});

describe('the OpenAPI description of the upload API (openapi-sentry-artifacts.ts, for the document)', () => {
  it('describes every upload request the clients made, with the statuses they got', async () => {
    const paths = sentryArtifactPaths() as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    for (const name of ['sentry-cli-2', 'sentry-cli-3', 'vite-plugin']) {
      const recorded: RecordedRequest[] = JSON.parse(
        await readFile(new URL(`./fixtures/sentry-cli/uploads-${name}.json`, import.meta.url), 'utf8'),
      );
      for (const request of recorded.filter((each) => UPLOAD_PATHS.test(each.path))) {
        const operation = paths[request.path]?.[request.method.toLowerCase()];
        expect(operation?.responses[String(request.status)], `${request.method} ${request.path}`).toBeDefined();
      }
    }
  });
});
