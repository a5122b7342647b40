// User feedback and client reports through the Sentry envelope endpoint: stored, cut, linked to their event's issue
// (whichever comes first), listed per issue and per app, counted in the outcomes; bad items skipped without harming
// the rest of their envelope. The last test drives @sentry/node 11 itself.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createApp, signUp, startTestServer, type TestServer } from './harness';
import { runNodeFeedbackClient } from './sentry-clients';
import { dsnParts } from './sentry-fixtures';

const server = await startTestServer();

async function newApp() {
  const { token } = await signUp(server);
  const app = await createApp(server, token, { type: 'node' });
  return { token, app, ...dsnParts(app.dsn) };
}

const newId = () => randomBytes(16).toString('hex');
const line = (value: unknown) => `${JSON.stringify(value)}\n`;

const errorEvent = (eventId: string, value = 'payment form froze') => ({
  event_id: eventId,
  timestamp: Date.now() / 1000,
  platform: 'node',
  exception: { values: [{ type: 'Error', value }] },
});

/** An item as SDKs send it: its header with the payload's length, then the payload. */
const item = (type: string, payload: unknown) => {
  const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return `${line({ type, length: Buffer.byteLength(text) })}${text}\n`;
};

const feedbackItem = (feedback: Record<string, unknown>, eventId = newId()) =>
  item('feedback', { event_id: eventId, type: 'feedback', contexts: { feedback }, platform: 'javascript' });

async function send(target: { projectId: string; publicKey: string }, body: string) {
  return server.call('POST', `/api/${target.projectId}/envelope/?sentry_key=${target.publicKey}`, { rawBody: body });
}

interface Feedback {
  id: string;
  kind: string;
  name: string | null;
  email: string | null;
  message: string;
  url: string | null;
  eventId: string | null;
  issueId: string | null;
  receivedAt: number;
}

async function issueFeedback(
  token: string,
  issueId: string,
  query = '',
): Promise<{ feedback: Feedback[]; nextCursor: string | null }> {
  const reply = await server.call('GET', `/api/issues/${encodeURIComponent(issueId)}/feedback${query}`, { token });
  expect(reply.status).toBe(200);
  return reply.body;
}

async function appFeedback(
  token: string,
  appKey: string,
  query = '',
): Promise<{ feedback: Feedback[]; nextCursor: string | null }> {
  const reply = await server.call('GET', `/api/feedback?appKey=${appKey}${query}`, { token });
  expect(reply.status).toBe(200);
  return reply.body;
}

async function onlyIssueId(token: string, appKey: string): Promise<string> {
  const issues = (await server.call('GET', `/api/issues?appKey=${appKey}`, { token })).body.issues;
  expect(issues).toHaveLength(1);
  return issues[0].id;
}

/** The outcomes once they settle: counts decided before the write statement are written about once a second. */
async function outcomesOf(target: TestServer, token: string, appKey: string, settled: (body: any) => boolean) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const reply = await target.call('GET', `/api/outcomes?appKey=${appKey}`, { token });
    expect(reply.status).toBe(200);
    if (settled(reply.body) || Date.now() > deadline) return reply.body.outcomes as Array<Record<string, unknown>>;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
const countOf = (outcomes: Array<Record<string, unknown>>, reason: string) =>
  outcomes.find((outcome) => outcome.reason === reason)?.events;

describe('Sentry feedback', () => {
  it('stores a feedback about a stored event, on its issue and in the app’s list, newest first, once per retry', async () => {
    const { token, app, ...dsn } = await newApp();
    const eventId = newId();
    expect((await send(dsn, line({ event_id: eventId }) + item('event', errorEvent(eventId)))).status).toBe(200);
    const issueId = await onlyIssueId(token, app.appKey);

    const first = feedbackItem({
      message: 'The pay button did nothing',
      name: 'Ada',
      contact_email: 'ada@example.com',
      url: 'https://shop.example/pay',
      associated_event_id: eventId,
    });
    const reply = await send(dsn, line({}) + first);
    expect(reply).toMatchObject({ status: 200, body: {} });
    // An SDK retrying the same envelope: kept once.
    expect((await send(dsn, line({}) + first)).status).toBe(200);
    // A feedback about the app, from the widget, with no event.
    expect((await send(dsn, line({}) + feedbackItem({ message: 'Love the new checkout' }))).status).toBe(200);

    const onIssue = await issueFeedback(token, issueId);
    expect(onIssue).toEqual({
      feedback: [
        {
          id: expect.any(String),
          kind: 'feedback',
          name: 'Ada',
          email: 'ada@example.com',
          message: 'The pay button did nothing',
          url: 'https://shop.example/pay',
          eventId: `evt_${eventId}`,
          issueId,
          receivedAt: expect.any(Number),
        },
      ],
      nextCursor: null,
    });
    const all = await appFeedback(token, app.appKey);
    expect(all.feedback.map((each) => [each.message, each.issueId])).toEqual([
      ['Love the new checkout', null],
      ['The pay button did nothing', issueId],
    ]);

    // Paged like the other lists: nextCursor back as cursor.
    const page = await appFeedback(token, app.appKey, '&limit=1');
    expect(page.feedback.map((each) => each.message)).toEqual(['Love the new checkout']);
    const next = await appFeedback(token, app.appKey, `&limit=1&cursor=${page.nextCursor}`);
    expect(next).toMatchObject({ feedback: [{ message: 'The pay button did nothing' }], nextCursor: null });
  });

  it('links a user_report sent before its event when the event arrives, storing the link (none resolved at read)', async () => {
    const { token, app, ...dsn } = await newApp();
    const eventId = newId();
    const report = item('user_report', {
      event_id: eventId,
      name: 'Bo',
      email: 'bo@example.com',
      comments: 'It crashed',
    });
    expect((await send(dsn, line({ event_id: eventId }) + report)).status).toBe(200);
    const waiting = await appFeedback(token, app.appKey);
    expect(waiting.feedback).toMatchObject([
      { kind: 'user_report', name: 'Bo', message: 'It crashed', eventId: `evt_${eventId}`, issueId: null },
    ]);

    expect((await send(dsn, line({ event_id: eventId }) + item('event', errorEvent(eventId)))).status).toBe(200);
    const issueId = await onlyIssueId(token, app.appKey);
    // The app's list reads the link stored by the event's write statement (it resolves nothing at read time).
    expect((await appFeedback(token, app.appKey)).feedback).toMatchObject([{ message: 'It crashed', issueId }]);
    expect((await issueFeedback(token, issueId)).feedback).toMatchObject([{ message: 'It crashed', issueId }]);

    // A user_report after its event, in the same envelope as another event of the same issue.
    const second = newId();
    const late = item('user_report', { event_id: eventId, name: 'Cy', comments: 'Again' });
    expect((await send(dsn, line({ event_id: second }) + item('event', errorEvent(second)) + late)).status).toBe(200);
    // Stored once per event: a second report about the same event is a retry.
    expect((await issueFeedback(token, issueId)).feedback.map((each) => each.message)).toEqual(['It crashed']);

    const third = newId();
    const about = item('user_report', { event_id: third, name: 'Cy', comments: 'Third time' });
    expect((await send(dsn, line({ event_id: third }) + item('event', errorEvent(third)) + about)).status).toBe(200);
    expect((await issueFeedback(token, issueId)).feedback.map((each) => each.message)).toEqual([
      'Third time',
      'It crashed',
    ]);
  });

  it('cuts long texts, skips bad items and still stores the rest of their envelope, never a 500', async () => {
    const { token, app, ...dsn } = await newApp();
    const eventId = newId();
    const body =
      line({ event_id: eventId }) +
      feedbackItem({ message: 'x'.repeat(10_000), name: 'n'.repeat(1000), associated_event_id: eventId }) +
      // No message; a message of the wrong type; not JSON; not an object; a user_report without event_id.
      feedbackItem({ name: 'nobody said anything' }) +
      feedbackItem({ message: { text: 'hi' } }) +
      item('feedback', '{"contexts": {"feedback": ') +
      item('user_report', '[1, 2]') +
      item('user_report', { comments: 'about what?' }) +
      item('client_report', { discarded_events: 'all of them' }) +
      // Over the size of a feedback item: skipped, its bytes streamed past.
      feedbackItem({ message: 'big', padding: 'p'.repeat(200 * 1024) }) +
      // Without a length: up to the next newline.
      `${line({ type: 'feedback' })}{not json}\n` +
      item('event', errorEvent(eventId));
    const reply = await send(dsn, body);
    expect(reply).toMatchObject({ status: 200, body: { id: eventId } });
    const issueId = await onlyIssueId(token, app.appKey);
    const [kept, ...others] = (await issueFeedback(token, issueId)).feedback;
    expect(others).toEqual([]);
    expect(kept?.message).toBe('x'.repeat(4096));
    expect(kept?.name).toBe('n'.repeat(128));
    const outcomes = await outcomesOf(server, token, app.appKey, (body) => countOf(body.outcomes, 'unsupported') === 8);
    expect(countOf(outcomes, 'unsupported')).toBe(8);
    expect(countOf(outcomes, 'accepted')).toBe(1);
  });

  it('adds client reports’ dropped error events to the outcomes as client_discard, per reason', async () => {
    const { token, app, ...dsn } = await newApp();
    const report = (discarded: unknown[]) =>
      item('client_report', { timestamp: Date.now() / 1000, discarded_events: discarded });
    const body =
      line({}) +
      report([
        { reason: 'queue_overflow', category: 'error', quantity: 3 },
        { reason: 'sample_rate', category: 'transaction', quantity: 50 },
        { reason: 'ratelimit_backoff', category: 'default', quantity: 2 },
        { reason: 'some_new_reason', category: 'error', quantity: 1 },
      ]) +
      report([{ reason: 'queue_overflow', category: 'error', quantity: 4 }]);
    expect(await send(dsn, body)).toMatchObject({ status: 200, body: {} });
    const outcomes = await outcomesOf(
      server,
      token,
      app.appKey,
      (body) => countOf(body.outcomes, 'client_discard') === 10,
    );
    expect(outcomes.find((outcome) => outcome.reason === 'client_discard')).toEqual({
      reason: 'client_discard',
      events: 10,
      clientReasons: [
        { reason: 'queue_overflow', events: 7 },
        { reason: 'ratelimit_backoff', events: 2 },
        { reason: 'other', events: 1 },
      ],
    });
    // Client reports are read, not skipped.
    expect(countOf(outcomes, 'unsupported')).toBe(0);
  });

  it('answers 404 for another organization’s issue or app, 401 without a token, 400 for a bad cursor', async () => {
    const { token, app, ...dsn } = await newApp();
    const eventId = newId();
    await send(dsn, line({ event_id: eventId }) + item('event', errorEvent(eventId)));
    const issueId = await onlyIssueId(token, app.appKey);
    const stranger = await signUp(server);
    const path = `/api/issues/${encodeURIComponent(issueId)}/feedback`;
    expect((await server.call('GET', path, { token: stranger.token })).status).toBe(404);
    expect((await server.call('GET', `/api/feedback?appKey=${app.appKey}`, { token: stranger.token })).status).toBe(
      404,
    );
    expect((await server.call('GET', path)).status).toBe(401);
    expect((await server.call('GET', `${path}?cursor=abc`, { token })).status).toBe(400);
    expect((await server.call('GET', '/api/feedback', { token })).status).toBe(400);
    expect(
      (await server.call('GET', `/api/issues/${encodeURIComponent(`${app.appKey}:nope`)}/feedback`, { token })).status,
    ).toBe(404);
  });

  it('takes @sentry/node 11’s captureFeedback and its client report', { timeout: 60_000 }, async () => {
    const { token, app } = await newApp();
    const eventId = await runNodeFeedbackClient(app.dsn);
    const issueId = await onlyIssueId(token, app.appKey);
    expect((await issueFeedback(token, issueId)).feedback).toMatchObject([
      {
        kind: 'feedback',
        name: 'Ada Lovelace',
        email: 'ada@example.com',
        message: 'The pay button did nothing',
        url: 'https://shop.example/pay',
        eventId: `evt_${eventId}`,
        issueId,
      },
    ]);
    const outcomes = await outcomesOf(
      server,
      token,
      app.appKey,
      (body) => countOf(body.outcomes, 'client_discard') === 1,
    );
    expect(outcomes.find((outcome) => outcome.reason === 'client_discard')).toEqual({
      reason: 'client_discard',
      events: 1,
      clientReasons: [{ reason: 'before_send', events: 1 }],
    });
  });
});
