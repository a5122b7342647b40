// Issues: events grouped by app and fingerprint, their ids and paging cursors.
import { z } from 'zod';
import { isStorableText } from './text';

export interface Issue {
  id: string;
  appKey: string;
  fingerprint: string;
  message: string;
  errorType: string;
  eventCount: number;
  userCount: number;
  firstSeenAt: number;
  lastSeenAt: number;
}

export function issueId(appKey: string, fingerprint: string): string {
  return `${appKey}:${fingerprint}`;
}

/** Splits `<appKey>:<fingerprint>`; app keys hold no colon, fingerprints hold exactly one. */
export function parseIssueId(id: string): { appKey: string; fingerprint: string } | null {
  const colon = id.indexOf(':');
  if (colon <= 0) return null;
  const fingerprint = id.slice(colon + 1);
  if (!fingerprint.includes(':')) return null;
  return { appKey: id.slice(0, colon), fingerprint };
}

/** Position after the last issue of a page, in the list's order (lastSeenAt desc, then id desc). */
export interface IssueCursor {
  lastSeenAt: number;
  appKey: string;
  fingerprint: string;
}

const cursorText = (max: number) => z.string().min(1).max(max).refine(isStorableText);
const cursorSchema = z.tuple([z.int().min(0), cursorText(128), cursorText(200)]);

function toBase64Url(text: string): string {
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function encodeCursor(cursor: IssueCursor): string {
  return toBase64Url(JSON.stringify([cursor.lastSeenAt, cursor.appKey, cursor.fingerprint]));
}

export function decodeCursor(text: string): IssueCursor | null {
  if (!/^[A-Za-z0-9_-]{1,600}$/.test(text)) return null;
  try {
    const parsed = cursorSchema.safeParse(JSON.parse(atob(text.replace(/-/g, '+').replace(/_/g, '/'))));
    if (!parsed.success) return null;
    const [lastSeenAt, appKey, fingerprint] = parsed.data;
    return { lastSeenAt, appKey, fingerprint };
  } catch {
    return null;
  }
}

export interface OverviewTotals {
  events: number;
  errors: number;
  failedRequests: number;
  affectedUsers: number;
  issues: number;
}
