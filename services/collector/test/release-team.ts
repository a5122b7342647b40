// An organization ready for sentry-cli: its owner, two apps and an org token, for the release tests.
import { expect } from 'vitest';
import { signUp, type TestServer } from './harness';

/** An organization with an owner, two apps (Shop, Admin) and an org token of scope releases. */
export async function releaseTeam(target: TestServer, scopes: string[] = ['releases']) {
  const owner = await signUp(target);
  const call = (method: string, path: string, token: string | undefined, body?: unknown) =>
    target.call(method, path, { token, ...(method === 'GET' ? {} : { body }) });
  const org = (await call('POST', '/api/orgs', owner.token, { name: 'Acme' })).body.org;
  const shop = (await call('POST', '/api/apps', owner.token, { name: 'Shop', type: 'web', org: org.slug })).body.app;
  const admin = (await call('POST', '/api/apps', owner.token, { name: 'Admin', type: 'web', org: org.slug })).body.app;
  const reply = await call('POST', '/api/tokens', owner.token, { name: 'ci', scopes, org: org.slug });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return { owner, org, shop, admin, token: reply.body.token.value as string, call };
}
