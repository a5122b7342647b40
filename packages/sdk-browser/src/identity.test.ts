// Session and anonymous ids: stored when storage works, in memory when it does not, always in the server's shapes.
import { describe, expect, it } from 'vitest';
import { newEventId, randomHex, resolveIdentity, type StorageLike, storageOf } from './identity';

function memoryStorage(initial: Record<string, string> = {}): StorageLike & { items: Record<string, string> } {
  const items = { ...initial };
  return {
    items,
    getItem: (key) => items[key] ?? null,
    setItem: (key, value) => {
      items[key] = value;
    },
  };
}

const throwing: StorageLike = {
  getItem: () => {
    throw new DOMException('denied', 'SecurityError');
  },
  setItem: () => {
    throw new DOMException('full', 'QuotaExceededError');
  },
};

describe('identity', () => {
  it('creates ids in the shapes the server takes and keeps them in storage', () => {
    const session = memoryStorage();
    const local = memoryStorage();
    const first = resolveIdentity(session, local);
    expect(first.sessionId).toMatch(/^session_[0-9a-f]{32}$/);
    expect(first.anonymousId).toMatch(/^anon_[0-9a-f]{32}$/);
    expect(resolveIdentity(session, local)).toEqual(first);
    // A new tab has a new sessionStorage but the same localStorage.
    const otherTab = resolveIdentity(memoryStorage(), local);
    expect(otherTab.anonymousId).toBe(first.anonymousId);
    expect(otherTab.sessionId).not.toBe(first.sessionId);
  });

  it('replaces a stored value the server would refuse', () => {
    const local = memoryStorage({ 'collector.anonymousId': 'anon_<script>' });
    const { anonymousId } = resolveIdentity(memoryStorage(), local);
    expect(anonymousId).toMatch(/^anon_[0-9a-f]{32}$/);
    expect(local.items['collector.anonymousId']).toBe(anonymousId);
  });

  it('works without storage, or with storage that throws', () => {
    expect(resolveIdentity(undefined, undefined).sessionId).toMatch(/^session_[0-9a-f]{32}$/);
    expect(resolveIdentity(throwing, throwing).anonymousId).toMatch(/^anon_[0-9a-f]{32}$/);
    expect(
      storageOf(() => {
        throw new DOMException('denied', 'SecurityError');
      }),
    ).toBeUndefined();
  });

  it('makes random ids with or without crypto', () => {
    expect(newEventId()).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(randomHex(undefined)).toMatch(/^[0-9a-f]{32}$/);
    const broken = {
      getRandomValues: () => {
        throw new Error('no entropy');
      },
    };
    expect(randomHex(broken)).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(Array.from({ length: 100 }, () => randomHex())).size).toBe(100);
  });
});
