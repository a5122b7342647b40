// A Node app that reports through @sentry/node, unmodified: `node node-client.mjs <dsn>`. Sends an error with a
// user and breadcrumbs, a message, a client fingerprint, and an error over 32 KiB (which the SDK sends gzipped).
import * as Sentry from '@sentry/node';

const dsn = process.argv[2];
Sentry.init({ dsn, release: 'shop-api@2.1.0', environment: 'staging', tracesSampleRate: 0, sendClientReports: false });
Sentry.setUser({ id: 'node-user-7', email: 'buyer@example.com' });
Sentry.addBreadcrumb({ category: 'cart', message: 'added item 42', level: 'info' });

function chargeCard(amount) {
  throw new TypeError(`card declined for amount ${amount}`);
}
function checkout() {
  try {
    chargeCard(1999);
  } catch (error) {
    Sentry.captureException(error);
  }
}
checkout();

Sentry.captureMessage('inventory sync finished late', 'warning');

Sentry.withScope((scope) => {
  scope.setFingerprint(['{{ default }}', 'payments']);
  Sentry.captureException(new RangeError('refund exceeds charge'));
});

// Over the SDK's 32 KiB threshold: the transport gzips the envelope.
Sentry.withScope((scope) => {
  scope.setExtra('cart', 'x'.repeat(40 * 1024));
  Sentry.captureException(new Error('cart too large to save'));
});

await Sentry.flush(10_000);
