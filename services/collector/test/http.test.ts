// The HTTP surface as a whole: routing errors, probes, the OpenAPI document, the tRPC endpoint.
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createApp, makeEvent, sendBatch, signUp, startTestServer } from './harness';

const server = await startTestServer();

describe('routing', () => {
  it.each(['/api/nothing', '/api', '/nothing', '/api/issues/a/b'])(
    'answers 404 NOT_FOUND as JSON for %s',
    async (path) => {
      const reply = await server.call('GET', path);
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
    },
  );

  it.each([
    ['DELETE', '/api/apps', 'GET, POST'],
    ['GET', '/api/events/batch', 'POST'],
    ['PUT', '/api/auth/login', 'POST'],
    ['POST', '/api/overview', 'GET'],
    ['DELETE', '/api/issues/x:y:z', 'GET, PATCH'],
    ['PATCH', '/api/auth/me', 'GET'],
  ])('answers 405 METHOD_NOT_ALLOWED with Allow for %s %s', async (method, path, allow) => {
    const reply = await server.call(method, path);
    expect(reply.status).toBe(405);
    expect(reply.headers.get('allow')).toBe(allow);
    expect(reply.body.error.code).toBe('METHOD_NOT_ALLOWED');
  });

  it.each(['/healthz', '/readyz', '/api/openapi.json'])('answers 405 with Allow: GET to POST %s', async (path) => {
    const reply = await server.call('POST', path, { body: {} });
    expect(reply.status).toBe(405);
    expect(reply.headers.get('allow')).toBe('GET');
    expect(reply.body.error.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('answers requests the HTTP parser refuses with the JSON error body', async () => {
    const { port } = new URL(server.url);
    const rawReply = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.end(request));
        let data = '';
        socket.on('data', (chunk) => (data += chunk));
        socket.on('close', () => resolve(data));
        socket.on('error', reject);
      });
    const badHeader = await rawReply('GET /api/apps HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \u0001abc\r\n\r\n');
    expect(badHeader).toMatch(/^HTTP\/1.1 400/);
    expect(JSON.parse(badHeader.slice(badHeader.indexOf('\r\n\r\n') + 4)).error.code).toBe('VALIDATION_FAILED');
    const hugeHeaders = await rawReply(`GET /api/issues?appKey=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(hugeHeaders).toMatch(/^HTTP\/1.1 413/);
    expect(hugeHeaders).toContain('"PAYLOAD_TOO_LARGE"');
  });

  it('answers every error as JSON with only the error field', async () => {
    const reply = await server.call('POST', '/api/auth/login', {
      rawBody: 'nope',
      headers: { 'content-type': 'application/json' },
    });
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(reply.body)).toEqual(['error']);
  });
});

describe('probes', () => {
  it('healthz and readyz answer 200 when the database is up', async () => {
    expect(await server.call('GET', '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await server.call('GET', '/readyz')).toMatchObject({ status: 200, body: { status: 'ready' } });
  });

  it('readyz and the API answer 503 UNAVAILABLE with Retry-After once the database is gone', async () => {
    const doomed = await startTestServer();
    const { token } = await signUp(doomed);
    await doomed.database.close();
    for (const [method, path, options] of [
      ['GET', '/readyz', {}],
      ['GET', '/api/apps', { token }],
      ['POST', '/api/events/batch', { body: { appKey: 'web_whatever00000000000', events: [{}] } }],
    ] as const) {
      const reply = await doomed.call(method, path, options);
      expect(reply.status, path).toBe(503);
      expect(reply.body.error.code).toBe('UNAVAILABLE');
      expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
  });
});

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1, covers every path, and documents every status with the error body', async () => {
    const { status, body: document } = await server.call('GET', '/api/openapi.json');
    expect(status).toBe(200);
    expect(document.openapi).toBe('3.1.0');
    const operations = Object.entries(
      document.paths as Record<string, Record<string, { responses: Record<string, any> }>>,
    ).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        route: `${method.toUpperCase()} ${path}`,
        responses: operation.responses,
      })),
    );
    expect(operations.map((operation) => operation.route).sort()).toEqual(
      [
        'GET /api/apps',
        'GET /api/apps/{appKey}/alerts',
        'GET /api/apps/{appKey}/alerts/deliveries',
        'POST /api/apps/{appKey}/alerts',
        'DELETE /api/apps/{appKey}/alerts/{id}',
        'POST /api/apps/{appKey}/alerts/{id}/test',
        'GET /api/auth/me',
        'POST /api/auth/password-reset',
        'POST /api/auth/password-reset/confirm',
        'GET /api/orgs',
        'POST /api/orgs',
        'GET /api/orgs/{slug}/members',
        'PATCH /api/orgs/{slug}/members/{userId}',
        'DELETE /api/orgs/{slug}/members/{userId}',
        'POST /api/orgs/{slug}/invitations',
        'DELETE /api/orgs/{slug}/invitations/{id}',
        'GET /api/orgs/{slug}/audit',
        'POST /api/invitations/accept',
        'GET /api/tokens',
        'POST /api/tokens',
        'DELETE /api/tokens/{id}',
        'GET /api/issues',
        'GET /api/issues/facets',
        'GET /api/issues/{id}',
        'POST /api/issues/{id}/comments',
        'GET /api/issues/{id}/activity',
        'GET /api/issues/{id}/tags',
        'GET /api/issues/{id}/feedback',
        'GET /api/feedback',
        'GET /api/openapi.json',
        'GET /api/outcomes',
        'GET /api/overview',
        'GET /api/overview/timeseries',
        'GET /healthz',
        'GET /readyz',
        'POST /api/apps',
        'POST /api/auth/login',
        'POST /api/auth/logout',
        'POST /api/auth/register',
        'POST /api/events/batch',
        'PATCH /api/issues',
        'PATCH /api/issues/{id}',
        'POST /api/{projectId}/envelope',
        'POST /api/{projectId}/store',
        'GET /sdk/collector.min.js',
        'GET /api/apps/{appKey}/releases',
        'GET /api/0/',
        'GET /api/0/organizations/{org}/',
        'GET /api/0/organizations/{org}/projects/',
        'GET /api/0/organizations/{org}/releases/',
        'POST /api/0/organizations/{org}/releases/',
        'GET /api/0/organizations/{org}/releases/{version}/',
        'PUT /api/0/organizations/{org}/releases/{version}/',
        'DELETE /api/0/organizations/{org}/releases/{version}/',
        'GET /api/0/organizations/{org}/releases/{version}/deploys/',
        'POST /api/0/organizations/{org}/releases/{version}/deploys/',
        'GET /api/0/projects/{org}/{project}/releases/',
        'POST /api/0/projects/{org}/{project}/releases/',
        'GET /api/0/projects/{org}/{project}/releases/{version}/',
        'PUT /api/0/projects/{org}/{project}/releases/{version}/',
        'DELETE /api/0/projects/{org}/{project}/releases/{version}/',
        'GET /api/0/organizations/{org}/repos/',
        'GET /api/0/organizations/{org}/chunk-upload/',
        'POST /api/0/organizations/{org}/chunk-upload/',
        'POST /api/0/organizations/{org}/artifactbundle/assemble/',
        'POST /api/0/organizations/{org}/releases/{version}/assemble/',
      ].sort(),
    );
    const statuses = Object.fromEntries(
      operations.map((operation) => [operation.route, Object.keys(operation.responses).sort()]),
    );
    expect(statuses['POST /api/auth/register']).toEqual([
      '201',
      '400',
      '403',
      '405',
      '409',
      '413',
      '415',
      '429',
      '500',
      '503',
    ]);
    expect(statuses['POST /api/auth/logout']).toEqual(['204', '400', '401', '403', '405', '413', '415', '500', '503']);
    expect(statuses['POST /api/events/batch']).toEqual(['200', '400', '403', '405', '413', '415', '429', '500', '503']);
    expect(statuses['POST /api/{projectId}/envelope']).toEqual([
      '200',
      '400',
      '403',
      '405',
      '413',
      '415',
      '429',
      '500',
      '503',
    ]);
    // 403: a role or a token's scopes that fall short.
    expect(statuses['GET /api/issues/{id}']).toEqual(['200', '400', '401', '403', '404', '405', '500', '503']);
    expect(statuses['PATCH /api/issues/{id}']).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '405',
      '413',
      '415',
      '500',
      '503',
    ]);
    expect(statuses['PATCH /api/issues']).toEqual(['200', '400', '401', '403', '405', '413', '415', '500', '503']);
    expect(statuses['DELETE /api/orgs/{slug}/members/{userId}']).toEqual([
      '204',
      '400',
      '401',
      '403',
      '404',
      '405',
      '409',
      '413',
      '415',
      '500',
      '503',
    ]);
    expect(statuses['POST /api/auth/password-reset']).toEqual(['202', '400', '405', '413', '415', '429', '500', '503']);
    expect(statuses['DELETE /api/apps/{appKey}/alerts/{id}']).toEqual([
      '204',
      '400',
      '401',
      '403',
      '404',
      '405',
      '413',
      '415',
      '500',
      '503',
    ]);
    // Sentry's web API answers Sentry's `{ detail }`; every other path the collector's error body.
    for (const operation of operations.filter((each) => each.route.includes('/api/0/'))) {
      for (const [code, response] of Object.entries(operation.responses)) {
        if (Number(code) >= 400)
          expect(response.content['application/json'].schema.required, `${operation.route} ${code}`).toEqual([
            'detail',
          ]);
      }
    }
    for (const operation of operations.filter(
      (each) => each.route.includes('/api/') && !each.route.includes('openapi') && !each.route.includes('/api/0/'),
    )) {
      for (const [code, response] of Object.entries(operation.responses)) {
        if (Number(code) >= 400)
          expect(response.content['application/json'].schema, `${operation.route} ${code}`).toEqual({
            $ref: '#/components/schemas/ErrorResponse',
          });
      }
    }
    expect(document.paths['/api/events/batch'].post.requestBody.content).toHaveProperty('text/plain');
  });

  it('states what the service enforces: integer bounds, e-mail format, public operations, licence, readiness body', async () => {
    const { body: document } = await server.call('GET', '/api/openapi.json');
    const parameter = (path: string, name: string) =>
      document.paths[path].get.parameters.find((each: { name: string }) => each.name === name).schema;
    expect(parameter('/api/issues', 'limit')).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    expect(parameter('/api/issues/{id}', 'limit')).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    for (const path of ['/api/overview', '/api/overview/timeseries']) {
      for (const name of ['from', 'to'])
        expect(parameter(path, name)).toMatchObject({ type: 'integer', minimum: 0, maximum: 8_640_000_000_000_000 });
    }
    expect(
      document.paths['/api/auth/register'].post.requestBody.content['application/json'].schema.properties.email.format,
    ).toBe('email');
    expect(document.components.schemas.User.properties.email.format).toBe('email');
    expect(
      document.paths['/api/apps'].post.requestBody.content['application/json'].schema.properties.name.description,
    ).toMatch(/after .*trimmed/);
    const publicOperations = [
      'POST /api/auth/register',
      'POST /api/auth/login',
      'POST /api/auth/password-reset',
      'POST /api/auth/password-reset/confirm',
      'POST /api/events/batch',
      'GET /healthz',
      'GET /readyz',
      'GET /api/openapi.json',
      'POST /api/{projectId}/envelope',
      'POST /api/{projectId}/store',
      'GET /sdk/collector.min.js',
    ];
    for (const [path, methods] of Object.entries<Record<string, { security?: unknown }>>(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const route = `${method.toUpperCase()} ${path}`;
        // A session or an API token, wherever either is taken.
        expect(operation.security, route).toEqual(
          publicOperations.includes(route) ? [] : [{ bearer: [] }, { apiToken: [] }],
        );
      }
    }
    expect(document.info.license.name).toBeTruthy();
    expect(
      document.paths['/readyz'].get.responses['200'].content['application/json'].schema.properties.database.enum,
    ).toEqual(['postgres', 'embedded', 'pglite']);
    expect(document.components.schemas).not.toHaveProperty('Error');
  });

  it('has no dangling references', async () => {
    const { body: document } = await server.call('GET', '/api/openapi.json');
    const references = [...JSON.stringify(document).matchAll(/"\$ref":"([^"]+)"/g)].map((match) => match[1] as string);
    expect(references.length).toBeGreaterThan(10);
    for (const reference of new Set(references)) {
      const target = reference
        .replace(/^#\//, '')
        .split('/')
        .reduce<any>((node, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
      expect(target, reference).toBeTypeOf('object');
    }
    expect(Object.keys(document.components.schemas).filter((name) => name.startsWith('error.'))).toEqual([]);
    expect(document.components.schemas.ErrorResponse.properties.error.required).toEqual(['code', 'message']);
  });

  it('matches the committed snapshot, so the REST surface cannot drift unnoticed', async () => {
    const { body } = await server.call('GET', '/api/openapi.json');
    await expect(JSON.stringify(body, null, 2)).toMatchFileSnapshot('__snapshots__/openapi.json');
  });
});

describe('tRPC endpoint for the typed client', () => {
  it('does not batch: one request is one call', async () => {
    const reply = await server.call('GET', `/trpc/${Array.from({ length: 50 }, () => 'auth.me').join(',')}?batch=1`);
    expect(reply.status).toBeGreaterThanOrEqual(400);
    expect(reply.status).toBeLessThan(500);
  });

  it('reports an unparseable body as INVALID_JSON', async () => {
    const reply = await server.call('POST', '/trpc/auth.login', {
      rawBody: '{bad',
      headers: { 'content-type': 'application/json' },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error.data.appError.code).toBe('INVALID_JSON');
  });

  it('serves the same router at /trpc with the contract code in the error data', async () => {
    const reply = await server.call('GET', '/trpc/auth.me');
    expect(reply.status).toBe(401);
    expect(reply.body.error.data.appError.code).toBe('UNAUTHENTICATED');
    expect(reply.headers.get('www-authenticate')).toBe('Bearer');
    expect(JSON.stringify(reply.body)).not.toMatch(/stack/);
  });
});

describe('compressed answers', () => {
  it("sends the dashboard's reads compressed to a client that takes it, and the same JSON", async () => {
    const { token } = await signUp(server);
    const app = await createApp(server, token);
    // Issues enough for an answer past the 1 KB threshold.
    const events = Array.from({ length: 12 }, (_, i) => makeEvent({ errorType: `Error${i}`, message: `boom ${i}` }));
    expect((await sendBatch(server, app.appKey, events)).status).toBe(200);
    const get = (path: string, acceptEncoding: string) =>
      fetch(`${server.url}${path}`, {
        headers: { authorization: `Bearer ${token}`, 'accept-encoding': acceptEncoding },
      });
    for (const path of ['/api/issues?limit=50', '/trpc/issues.list?input=%7B%22limit%22%3A50%7D']) {
      const plain = await get(path, 'identity');
      expect(plain.status, path).toBe(200);
      expect(plain.headers.get('content-encoding'), path).toBeNull();
      const expected = await plain.json();
      expect(JSON.stringify(expected).length, path).toBeGreaterThan(1024);
      for (const [accept, encoding] of [
        ['gzip, deflate, br', 'br'],
        ['gzip', 'gzip'],
      ] as const) {
        const reply = await get(path, accept);
        expect(reply.headers.get('content-encoding'), `${path} ${accept}`).toBe(encoding);
        expect(reply.headers.get('vary')).toContain('Accept-Encoding');
        // fetch decodes the body as the browser does.
        expect(await reply.json()).toEqual(expected);
      }
    }
    // Small answers and writes go out as they are.
    expect((await get('/api/auth/me', 'gzip')).headers.get('content-encoding')).toBeNull();
    const write = await fetch(`${server.url}/api/events/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'accept-encoding': 'gzip' },
      body: JSON.stringify({ appKey: app.appKey, events: [makeEvent()] }),
    });
    expect(write.status).toBe(200);
    expect(write.headers.get('content-encoding')).toBeNull();
  });
});
