// Feedback and client reports as Sentry SDKs send them, mapped: what is kept, what is cut, what is not one.
import { describe, expect, it } from 'vitest';
import { clientDiscardsFromSentry, feedbackFromSentry, feedbackLimits, userReportFromSentry } from './feedback';

const id = 'ac65263f93224c28b110f216b47b8c8a';
const eventId = '27b0f9d394324340b682a79293e97f85';

describe('feedbackFromSentry', () => {
  it('keeps what @sentry/node 11 sent (contexts.feedback), linked to its associated event', () => {
    const item = {
      event_id: id,
      type: 'feedback',
      contexts: {
        feedback: {
          contact_email: 'ada@example.com',
          name: 'Ada',
          message: 'It broke when I paid',
          url: 'https://shop.example/pay',
          associated_event_id: eventId,
        },
      },
    };
    expect(feedbackFromSentry(item)).toEqual({
      kind: 'feedback',
      sourceId: id,
      eventId: `evt_${eventId}`,
      name: 'Ada',
      email: 'ada@example.com',
      message: 'It broke when I paid',
      url: 'https://shop.example/pay',
    });
  });

  it('takes the envelope header’s event_id when the item has none, and keeps a feedback about no event', () => {
    expect(feedbackFromSentry({ contexts: { feedback: { message: 'Love it' } } }, id)).toEqual({
      kind: 'feedback',
      sourceId: id,
      eventId: null,
      name: null,
      email: null,
      message: 'Love it',
      url: null,
    });
  });

  it('cuts long texts instead of refusing them, at a character boundary', () => {
    const long = `${'é'.repeat(3000)}`;
    const mapped = feedbackFromSentry(
      { event_id: id, contexts: { feedback: { message: long, name: 'n'.repeat(500), contact_email: 1 } } },
      undefined,
    );
    expect(new TextEncoder().encode(mapped?.message).length).toBeLessThanOrEqual(feedbackLimits.messageBytes);
    expect(mapped?.message).toBe('é'.repeat(2048));
    expect(mapped?.name).toHaveLength(feedbackLimits.nameChars);
    // Not a string: absent, not an error.
    expect(mapped?.email).toBeNull();
  });

  it('is undefined without a message, without an id, or with a malformed associated id (dropped, not the item)', () => {
    expect(feedbackFromSentry({ event_id: id, contexts: { feedback: { message: '  ' } } })).toBeUndefined();
    expect(feedbackFromSentry({ event_id: id, contexts: { feedback: 'hi' } })).toBeUndefined();
    expect(feedbackFromSentry({ contexts: { feedback: { message: 'hi' } } })).toBeUndefined();
    expect(feedbackFromSentry({ event_id: 'x', contexts: { feedback: { message: 'hi' } } })).toBeUndefined();
    const odd = feedbackFromSentry({
      event_id: id,
      contexts: { feedback: { message: 'hi', associated_event_id: '../x' } },
    });
    expect(odd?.eventId).toBeNull();
  });
});

describe('userReportFromSentry', () => {
  it('keeps { event_id, name, email, comments }, about that event', () => {
    expect(
      userReportFromSentry({ event_id: eventId, name: 'Bo', email: 'bo@example.com', comments: 'Crashed' }),
    ).toEqual({
      kind: 'user_report',
      sourceId: eventId,
      eventId: `evt_${eventId}`,
      name: 'Bo',
      email: 'bo@example.com',
      message: 'Crashed',
      url: null,
    });
  });

  it('is undefined without an event_id or comments; NUL characters are removed', () => {
    expect(userReportFromSentry({ name: 'Bo', comments: 'Crashed' })).toBeUndefined();
    expect(userReportFromSentry({ event_id: eventId, comments: 42 })).toBeUndefined();
    expect(userReportFromSentry({ event_id: eventId, comments: 'a\u0000b' })?.message).toBe('ab');
  });
});

describe('clientDiscardsFromSentry', () => {
  it('sums quantity per reason for error and default events only; unknown reasons count as other', () => {
    const report = {
      timestamp: 1795636444,
      discarded_events: [
        { reason: 'before_send', category: 'error', quantity: 2 },
        { reason: 'before_send', category: 'default', quantity: 3 },
        { reason: 'sample_rate', category: 'transaction', quantity: 40 },
        { reason: 'queue_overflow', category: 'error', quantity: 1 },
        { reason: 'made_up', category: 'error', quantity: 4 },
        { reason: 'network_error', category: 'error', quantity: -1 },
        { reason: 'network_error', category: 'error', quantity: 1.5 },
        { reason: 'network_error', category: 'error', quantity: 1e12 },
        'nonsense',
      ],
    };
    expect(clientDiscardsFromSentry(report)).toEqual([
      { reason: 'before_send', quantity: 5 },
      { reason: 'queue_overflow', quantity: 1 },
      { reason: 'other', quantity: 4 },
    ]);
  });

  it('is empty for a report of nothing, undefined when discarded_events is not a list', () => {
    expect(clientDiscardsFromSentry({ discarded_events: [] })).toEqual([]);
    expect(clientDiscardsFromSentry({})).toEqual([]);
    expect(clientDiscardsFromSentry({ discarded_events: { reason: 'x' } })).toBeUndefined();
  });
});
