// everyOutcome: every reason listed once, and SDK-dropped events summed from their rows per reason.
import { describe, expect, it } from 'vitest';
import { everyOutcome } from './outcome';

describe('everyOutcome', () => {
  it('lists every reason once, zeros included, client_discard summed from its rows with the commonest first', () => {
    const outcomes = everyOutcome([
      { reason: 'accepted', events: 7 },
      { reason: 'client_discard:before_send', events: 2 },
      { reason: 'client_discard:queue_overflow', events: 5 },
    ]);
    expect(outcomes).toEqual([
      { reason: 'accepted', events: 7 },
      { reason: 'duplicate', events: 0 },
      { reason: 'invalid', events: 0 },
      { reason: 'rate_limited', events: 0 },
      { reason: 'too_large', events: 0 },
      { reason: 'unsupported', events: 0 },
      {
        reason: 'client_discard',
        events: 7,
        clientReasons: [
          { reason: 'queue_overflow', events: 5 },
          { reason: 'before_send', events: 2 },
        ],
      },
    ]);
    expect(everyOutcome([]).at(-1)).toEqual({ reason: 'client_discard', events: 0, clientReasons: [] });
  });
});
