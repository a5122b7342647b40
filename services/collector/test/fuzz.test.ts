// Property-based fuzzing of every endpoint (the CI sample; `pnpm fuzz` runs 10,000+ against a child process).
// For any generated request: no 5xx, the process stays up, no prototype is polluted, every error is the contract's
// body with a code from its table and a status the document lists, and every 2xx matches the documented shape.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Endpoint, endpointArbitrary, endpoints, type Fixtures } from '../../../tools/fuzz/src/inputs';
import { prototypeFingerprint, ReplyChecker } from '../../../tools/fuzz/src/invariants';
import { createAgent, send } from '../../../tools/fuzz/src/transport';
import { createApp, makeEvent, PASSWORD, sendBatch, signUp, startTestServer } from './harness';

/** Runs per endpoint: a few hundred in CI; FUZZ_RUNS raises it locally. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

const server = await startTestServer();
const origin = server.url.replace('localhost', '127.0.0.1');
const owner = await signUp(server);
const other = await signUp(server);
const spare = await server.call('POST', '/api/auth/login', { body: { email: owner.email, password: PASSWORD } });
const { appKey } = await createApp(server, owner.token);
const { appKey: otherAppKey } = await createApp(server, other.token);
await sendBatch(server, appKey, [makeEvent({ fingerprint: 'js:fuzz' })]);
await sendBatch(server, otherAppKey, [makeEvent({ fingerprint: 'js:fuzz', message: 'the other user’s secret' })]);

const fixtures: Fixtures = {
  token: owner.token,
  spareToken: spare.body.token,
  otherToken: other.token,
  appKey,
  otherAppKey,
  issueId: `${appKey}:js:fuzz`,
  email: owner.email,
  password: PASSWORD,
};
const checker = new ReplyChecker((await server.call('GET', '/api/openapi.json')).body);
const agent = createAgent(4);
const prototypesBefore = prototypeFingerprint();

// The slow ones hash a password with argon2 per valid input.
const runsFor = (endpoint: Endpoint) =>
  endpoint === 'auth.register' || endpoint === 'auth.login' ? Math.ceil(RUNS / 2) : RUNS;

describe('fuzzing every endpoint', () => {
  it.each(endpoints.map((endpoint) => [endpoint]))(
    '%s: any input gets a contract answer, never a 5xx',
    async (endpoint) => {
      await fc.assert(
        fc.asyncProperty(endpointArbitrary(endpoint, fixtures), async (input) => {
          const reply = await send(origin, input.request, { agent });
          const problems = checker.check(input.request, reply);
          expect(problems, `${input.kind}\n${reply.status} ${reply.body.subarray(0, 300).toString()}`).toEqual([]);
          // Another user's data never shows up, whatever was asked, unless it was asked with that user's token.
          if (!input.request.headers.authorization?.includes(fixtures.otherToken))
            expect(reply.body.toString('utf8')).not.toContain('the other user’s secret');
          expect(prototypeFingerprint()).toBe(prototypesBefore);
        }),
        { numRuns: runsFor(endpoint), seed: SEED, endOnFailure: true },
      );
    },
    120_000,
  );

  // Found by fuzzing: TRACE reached tRPC's adapter, whose fetch Request refused it, and that became a 500.
  it.each(['TRACE', 'DELETE', 'PATCH', 'OPTIONS'])('answers %s /trpc with 405 and Allow', async (method) => {
    const reply = await send(origin, { method, path: '/trpc/auth.me', headers: {} }, { agent });
    expect(reply.status).toBe(405);
    expect(reply.headers.allow).toBe('GET, POST');
  });

  it('is still up and serving, and no prototype was polluted', async () => {
    expect((await server.call('GET', '/healthz')).status).toBe(200);
    expect((await server.call('GET', '/api/auth/me', { token: owner.token })).status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(prototypeFingerprint()).toBe(prototypesBefore);
    agent.destroy();
  });
});
