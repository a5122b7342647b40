// A Node app that asks its user for feedback through @sentry/node, unmodified: `node node-feedback-client.mjs <dsn>`.
// Sends an error, the user's feedback about it (Sentry.captureFeedback), and drops a message in beforeSend, which the
// SDK then reports in a client report (reason before_send).
import * as Sentry from '@sentry/node';

const dsn = process.argv[2];
Sentry.init({
  dsn,
  tracesSampleRate: 0,
  beforeSend: (event) => (event.message === 'dropped before sending' ? null : event),
});
const eventId = Sentry.captureException(new Error('payment form froze'));
Sentry.captureFeedback({
  message: 'The pay button did nothing',
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  url: 'https://shop.example/pay',
  associatedEventId: eventId,
});
Sentry.captureMessage('dropped before sending');
await Sentry.flush(10_000);
// The drop is recorded once the message went through beforeSend: a second flush sends its client report.
await Sentry.flush(10_000);
console.log(eventId);
