// A search (GET /api/issues?q=) that cannot be read: 400 VALIDATION_FAILED on q, naming the term, never a 500.
import { describe, expect, it } from 'vitest';
import { createApp, expectValidationFailed, makeEvent, sendBatch, signUp, startTestServer } from './harness';

const server = await startTestServer();
const { token } = await signUp(server);
const { appKey } = await createApp(server, token);
await sendBatch(server, appKey, [makeEvent({ fingerprint: 'js:one' })]);

const search = (q: string, as = token) => server.call('GET', `/api/issues?q=${encodeURIComponent(q)}`, { token: as });

describe('a search that cannot be read', () => {
  it.each([
    [
      'is:open',
      'is:open: is:open is unknown; is: takes unresolved, resolved, ignored, archived, assigned or unassigned',
    ],
    ['level:error is:Resolved', 'is:Resolved: is:Resolved is unknown'],
    ['assigned:bob', 'assigned:bob: assigned: takes me, none or a member’s e-mail address'],
    ['level:warn', 'level:warn: level: takes fatal, error, warning, info or debug'],
    ['handled:maybe', 'handled:maybe: handled: takes yes or no'],
    ['error.unhandled:yes', 'error.unhandled:yes: error.unhandled: takes true or false'],
    ['has:a/b', 'has:a/b: has: takes a tag’s key'],
    ['level:', 'level:: level has no value'],
    ['cart browser: Chrome', 'browser:: browser has no value'],
    ['browser:""', 'browser:"": browser has no value'],
    ['browser:"Chrome 120', 'browser:"Chrome 120: unclosed quote'],
    ['"TypeError: x', '"TypeError: x: unclosed quote'],
    ['browser:[Chrome,Firefox', 'browser:[Chrome,Firefox: unclosed ['],
    ['browser:[Chrome,,Firefox]', 'browser:[Chrome,,Firefox]: an empty value in the list'],
    ['tags[level:high', 'tags[level:high: unclosed ['],
    ['tags[a/b]:x', 'tags[a/b]:x: a tag’s key is letters, digits, _, ., : and -'],
    ['TypeError(x): y', 'TypeError(x):: a key is letters, digits, _, . and - (put free text with a colon in quotes)'],
    [':x', ':x: a key is letters'],
    ['browser:"Chrome"120', 'browser:"Chrome"120: text right after the value'],
  ])('%s: 400 naming the term', async (q, message) => {
    const reply = await search(q);
    expectValidationFailed(reply, 'q');
    expect(reply.body.error.details[0].message).toContain(message);
  });

  it.each(['!', '\\', '"', '*', '!:', 'tags[', 'tags[]', '[', ']', ':', '::', '\\"', 'a:\\', 'a:[\\]'])(
    '%s: 200 or a 400 on q, never a 500',
    async (q) => {
      const reply = await search(q);
      if (reply.status !== 200) expectValidationFailed(reply, 'q');
    },
  );

  it('takes 200 characters of search and refuses 201', async () => {
    expect((await search(`level:error ${'x'.repeat(188)}`)).status).toBe(200);
    expectValidationFailed(await search(`level:error ${'x'.repeat(189)}`), 'q');
  });

  it('refuses assigned:me from an organization token, which is no one', async () => {
    const created = await server.call('POST', '/api/tokens', {
      token,
      body: { name: 'ci', scopes: ['read'], org: (await server.call('GET', '/api/orgs', { token })).body.orgs[0].slug },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const orgToken = created.body.token.value as string;
    const reply = await search('is:unresolved assigned:me', orgToken);
    expectValidationFailed(reply, 'q');
    expect(reply.body.error.details[0].message).toContain('assigned:me');
    expect((await search('assigned:none', orgToken)).status).toBe(200);
  });
});
