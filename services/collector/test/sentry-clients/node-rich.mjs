// A Node app that reports through @sentry/node, unmodified, with everything Sentry's event data holds:
// `node node-rich.mjs <dsn>`. An HTTP server of its own takes a checkout POST (an Authorization header, a cookie and a
// body with a password, all of which the SDK sends since sendDefaultPii is on) and its handler reports an error caused
// by another (`new Error(..., { cause })`), with tags, a user, a custom context and extra; the SDK adds os, runtime,
// device and the request it read itself.
import { createServer } from 'node:http';
import * as Sentry from '@sentry/node';

const dsn = process.argv[2];
Sentry.init({
  dsn,
  release: 'shop-api@2.2.0',
  environment: 'production',
  serverName: 'api-node-1',
  sendDefaultPii: true,
  tracesSampleRate: 0,
  sendClientReports: false,
});

function reachCardNetwork() {
  const error = new Error('card network unreachable');
  error.name = 'NetworkError';
  throw error;
}

function checkout() {
  try {
    reachCardNetwork();
  } catch (cause) {
    throw new Error('Checkout failed', { cause });
  }
}

// An async handler that awaits the body: the request's isolation scope (where the SDK keeps the request it read, the
// body it saw go by on 'data' included) stays current after the await, as in any async framework's handler.
const server = createServer(async (req, res) => {
  await new Promise((resolve) => req.on('data', () => {}).on('end', resolve));
  Sentry.setTags({ tenant: 'acme', 'checkout.step': 'payment' });
  Sentry.setUser({ id: 'buyer-42', email: 'buyer42@example.com', username: 'buyer42' });
  Sentry.setContext('order', { id: 'ord_981', total: 1999, currency: 'EUR' });
  Sentry.setExtra('cart_items', 3);
  Sentry.setExtra('coupon', 'SPRING');
  try {
    checkout();
  } catch (error) {
    Sentry.captureException(error);
  }
  res.writeHead(500).end();
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address();
await fetch(`http://127.0.0.1:${port}/checkout?step=pay&coupon=SPRING`, {
  method: 'POST',
  headers: {
    authorization: 'Bearer sk_live_node',
    cookie: 'session=node-cookie',
    'content-type': 'application/json',
    'x-request-id': 'req-node-77',
  },
  body: JSON.stringify({ card_last4: '4242', password: 'hunter2-node' }),
});
server.close();
await Sentry.flush(10_000);
