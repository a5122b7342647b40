// A page's script that reports through @sentry/browser, unmodified; bundled by esbuild in the test. The DSN comes from
// the page (window.SENTRY_DSN); the buttons make the four kinds of reports a browser app sends, and `checkout` the
// event-data scenario every SDK sends (sentry-clients.ts). Plain JavaScript: the service's TypeScript has no DOM types.
import * as Sentry from '@sentry/browser';

Sentry.init({
  dsn: window.SENTRY_DSN,
  release: 'shop-web@1.8.0',
  environment: 'production',
  integrations: [Sentry.httpClientIntegration()],
  sendClientReports: false,
});
Sentry.setUser({ id: 'browser-user-1', email: 'shopper@example.com' });
window.flushSentry = () => Sentry.flush(10_000);

function renderCart(cart) {
  return cart.items.length;
}

function byId(id) {
  const element = document.getElementById(id);
  if (!element) throw new Error(`no #${id}`);
  return element;
}

byId('uncaught').addEventListener('click', () => {
  setTimeout(function onCheckout() {
    renderCart(undefined);
  });
});
byId('rejection').addEventListener('click', () => {
  void Promise.reject(new Error('payment declined'));
});
byId('message').addEventListener('click', () => {
  Sentry.captureMessage('checkout opened without items', 'info');
});
byId('fetch').addEventListener('click', () => {
  void fetch('/api/stock?item=42');
});
byId('checkout').addEventListener('click', () => {
  // The same checkout failure the server SDKs report: an error caused by another, with tags, a user, a custom context
  // and extra, in a scope of its own so the other scenarios' events stay as they were. The SDK adds the page's request
  // (URL with its query, User-Agent); a browser sends no body or credentials of its own page load.
  Sentry.withScope((scope) => {
    scope.setTags({ tenant: 'acme', 'checkout.step': 'payment' });
    scope.setUser({ id: 'buyer-42', email: 'buyer42@example.com', username: 'buyer42' });
    scope.setContext('order', { id: 'ord_981', total: 1999, currency: 'EUR' });
    scope.setExtras({ cart_items: 3, coupon: 'SPRING' });
    const cause = new Error('card network unreachable');
    cause.name = 'NetworkError';
    Sentry.captureException(new Error('Checkout failed', { cause }));
  });
});
