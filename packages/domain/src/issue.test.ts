import { describe, expect, it } from 'vitest';
import { decodeCursor, decodeEventCursor, encodeCursor, encodeEventCursor, issueId, parseIssueId } from './issue';

const toBase64Url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

describe('issueId / parseIssueId', () => {
  it('joins appKey and fingerprint with a colon', () => {
    expect(issueId('web_abc123', 'TypeError:0123456789abcdef')).toBe('web_abc123:TypeError:0123456789abcdef');
  });

  it('round-trips', () => {
    for (const [appKey, fingerprint] of [
      ['web_abc123', 'TypeError:0123456789abcdef'],
      ['react-native_XyZ0987654321abcd', 'request:fedcba9876543210'],
      ['node_k', 'custom.group-1:v2_checkout'],
    ] as const) {
      expect(parseIssueId(issueId(appKey, fingerprint))).toEqual({ appKey, fingerprint });
    }
  });

  it('splits on the first colon, leaving the fingerprint whole', () => {
    expect(parseIssueId('web_a:Error:abc')).toEqual({ appKey: 'web_a', fingerprint: 'Error:abc' });
  });

  it('rejects ids without a colon', () => {
    expect(parseIssueId('web_abc123')).toBeNull();
    expect(parseIssueId('')).toBeNull();
  });

  it('rejects ids whose fingerprint part has no colon', () => {
    expect(parseIssueId('web_abc123:TypeError')).toBeNull();
    expect(parseIssueId('web_abc123:')).toBeNull();
  });

  it('rejects ids with an empty appKey', () => {
    expect(parseIssueId(':TypeError:0123456789abcdef')).toBeNull();
  });
});

describe('encodeCursor / decodeCursor', () => {
  const cursor = {
    sort: 'lastSeen' as const,
    value: 1_700_000_000_123,
    appKey: 'web_abc123',
    fingerprint: 'TypeError:0123456789abcdef',
  };

  it('round-trips', () => {
    expect(decodeCursor(encodeCursor(cursor))).toEqual(cursor);
    const zero = { sort: 'events' as const, value: 0, appKey: 'a', fingerprint: 'b' };
    expect(decodeCursor(encodeCursor(zero))).toEqual(zero);
  });

  it('is URL-safe base64 without padding', () => {
    // '>>>' and '???' encode to '+' and '/' in plain base64.
    const awkward = { sort: 'users' as const, value: 1, appKey: 'web_>>>', fingerprint: 'x:???' };
    const text = encodeCursor(awkward);
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(text)).toEqual(awkward);
    expect(encodeCursor(cursor)).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('returns null for garbage', () => {
    for (const text of ['', '!!!', 'not a cursor', 'abc=', 'A', '%%%%', 'a+b/c', toBase64Url('not json')]) {
      expect(decodeCursor(text)).toBeNull();
    }
  });

  it('returns null for valid base64 of JSON of the wrong shape', () => {
    for (const json of [
      '{"sort":"lastSeen","value":1,"appKey":"a","fingerprint":"b"}',
      '["lastSeen",1,"a"]',
      '["lastSeen",1,"a","b","extra"]',
      '["lastSeen","1","a","b"]',
      '["lastSeen",-1,"a","b"]',
      '["lastSeen",1.5,"a","b"]',
      '["lastSeen",1,"","b"]',
      '["lastSeen",1,"a",""]',
      '["newest",1,"a","b"]',
      '[1,"a","b"]',
      `["lastSeen",1,"${'a'.repeat(129)}","b"]`,
      `["lastSeen",1,"a","${'b'.repeat(201)}"]`,
      '[1,2,3]',
      'null',
      '42',
      '"text"',
      '[]',
    ]) {
      expect(decodeCursor(toBase64Url(json))).toBeNull();
    }
  });

  it('accepts the longest fields the schema allows', () => {
    const longest = { sort: 'firstSeen' as const, value: 5, appKey: 'a'.repeat(128), fingerprint: 'b'.repeat(200) };
    expect(decodeCursor(encodeCursor(longest))).toEqual(longest);
  });

  it('returns null for over-long input without decoding it', () => {
    expect(decodeCursor('A'.repeat(601))).toBeNull();
    expect(decodeCursor('A'.repeat(100_000))).toBeNull();
    // Over-long even though the tail would decode to a valid cursor.
    expect(decodeCursor(encodeCursor(cursor) + 'A'.repeat(600))).toBeNull();
  });
});

describe('encodeEventCursor / decodeEventCursor', () => {
  it('round-trips and refuses other shapes, issue cursors included', () => {
    const cursor = { timestamp: 1_700_000_000_123, eventId: 'evt_abc-1' };
    expect(decodeEventCursor(encodeEventCursor(cursor))).toEqual(cursor);
    expect(encodeEventCursor(cursor)).toMatch(/^[A-Za-z0-9_-]+$/);
    for (const json of ['[1]', '["1","evt_a"]', '[1.5,"evt_a"]', '[1,""]', '{"timestamp":1,"eventId":"evt_a"}']) {
      expect(decodeEventCursor(toBase64Url(json))).toBeNull();
    }
    expect(decodeEventCursor(encodeCursor({ sort: 'lastSeen', value: 1, appKey: 'a', fingerprint: 'b' }))).toBeNull();
    expect(decodeEventCursor('!!!')).toBeNull();
  });
});
