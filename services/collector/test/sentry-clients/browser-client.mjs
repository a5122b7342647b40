// A page's script that reports through @sentry/browser, unmodified; bundled by esbuild in the test. The DSN comes from
// the page (window.SENTRY_DSN); the buttons make the four kinds of reports a browser app sends. Plain JavaScript: the
// service's TypeScript has no DOM types.
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
