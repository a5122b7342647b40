// Who and when, without cookies: a random id per tab session (sessionStorage) and one per browser (localStorage).
// Storage can be missing or throw on access (sandboxed iframes, blocked storage, Safari private mode, full quota):
// then the id lives in memory for the page's lifetime, which still groups one page's events.

const SESSION_KEY = 'collector.sessionId';
const ANONYMOUS_KEY = 'collector.anonymousId';
const SESSION_PATTERN = /^session_[A-Za-z0-9_-]{1,128}$/;
const ANONYMOUS_PATTERN = /^anon_[A-Za-z0-9_-]{1,128}$/;

interface CryptoLike {
  getRandomValues(array: Uint8Array): unknown;
}

/** 128 random bits as hex. getRandomValues exists outside secure contexts too (randomUUID does not). */
export function randomHex(crypto: CryptoLike | undefined = globalThis.crypto): string {
  const bytes = new Uint8Array(16);
  let filled = false;
  try {
    if (crypto) {
      crypto.getRandomValues(bytes);
      filled = true;
    }
  } catch {
    // Left to Math.random below: these ids need to be unique, not secret.
  }
  let hex = '';
  for (let i = 0; i < bytes.length; i++) {
    const byte = filled ? (bytes[i] ?? 0) : Math.floor(Math.random() * 256);
    hex += (byte < 16 ? '0' : '') + byte.toString(16);
  }
  return hex;
}

export const newEventId = () => `evt_${randomHex()}`;

export interface StorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** Even reading `window.localStorage` throws where storage is blocked. */
export function storageOf(read: () => StorageLike | null | undefined): StorageLike | undefined {
  try {
    return read() ?? undefined;
  } catch {
    return undefined;
  }
}

/** The stored id when it is well formed (storage is the page's, anything may be there), else a new one, stored if possible. */
function persistentId(storage: StorageLike | undefined, key: string, prefix: string, pattern: RegExp): string {
  try {
    const stored = storage?.getItem(key);
    if (stored && pattern.test(stored)) return stored;
  } catch {
    // Unreadable: a fresh id.
  }
  const id = `${prefix}${randomHex()}`;
  try {
    storage?.setItem(key, id);
  } catch {
    // Quota or policy: the id still serves this page.
  }
  return id;
}

export interface Identity {
  sessionId: string;
  anonymousId: string;
}

export function resolveIdentity(session: StorageLike | undefined, local: StorageLike | undefined): Identity {
  return {
    sessionId: persistentId(session, SESSION_KEY, 'session_', SESSION_PATTERN),
    anonymousId: persistentId(local, ANONYMOUS_KEY, 'anon_', ANONYMOUS_PATTERN),
  };
}
