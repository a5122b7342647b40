// The HTTP server's request and response classes (app.ts, expressClasses): Express finds its methods already on the
// objects the server makes, so it leaves their prototypes as they are (its per-request Object.setPrototypeOf cost
// every request time and kept its objects alive through the next scavenges: docs/performance.md).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { expressClasses } from '../src/app';

/** Serves one Express route on a server made with or without the classes; what the route saw of its request. */
async function serve(withClasses: boolean) {
  const app = express();
  const seen: { made?: object; handled?: object } = {};
  app.get('/x', (req, res) => {
    seen.handled = Object.getPrototypeOf(req);
    res.status(201).json({ path: req.path, query: req.query, app: req.app === app, accepts: req.accepts('json') });
  });
  const classes = withClasses ? expressClasses(app) : undefined;
  const server = createServer(classes ?? {}, (req: IncomingMessage, res: ServerResponse) => {
    seen.made = Object.getPrototypeOf(req);
    app(req, res);
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const reply = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/x?a=1`);
    return { status: reply.status, body: await reply.json(), seen, classes, app };
  } finally {
    server.close();
  }
}

describe("the server's request and response classes", () => {
  it('carry Express’s methods, so Express answers as ever and leaves the request’s prototype alone', async () => {
    const { status, body, seen, classes, app } = await serve(true);
    expect(status).toBe(201);
    expect(body).toEqual({ path: '/x', query: { a: '1' }, app: true, accepts: 'json' });
    expect(seen.made).toBe(classes?.IncomingMessage.prototype);
    expect(seen.handled).toBe(seen.made);
    expect(app.request).toBe(classes?.IncomingMessage.prototype);
    expect(app.response).toBe(classes?.ServerResponse.prototype);
  });

  it('without them Express swaps every request’s prototype (what they avoid)', async () => {
    const { status, body, seen } = await serve(false);
    expect(status).toBe(201);
    expect(body).toEqual({ path: '/x', query: { a: '1' }, app: true, accepts: 'json' });
    expect(seen.handled).not.toBe(seen.made);
  });
});
