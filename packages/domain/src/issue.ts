// Issues: events grouped by app and fingerprint, their ids and paging cursors.
import { z } from 'zod';
import type { EventLevel } from './event';
import { isStorableText } from './text';
import { type IssueSort, type IssueStatus, issueSorts } from './triage';

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
  status: IssueStatus;
  /** When the status last changed, by a person or by a regression; null while it never has. */
  statusChangedAt: number | null;
  /** When an event last reopened the issue after it was resolved. */
  regressedAt: number | null;
  culprit: string | null;
  level: EventLevel;
  lastRelease: string | null;
  /** The grouping version that made the fingerprint; null when the client sent its own. */
  groupingVersion: number | null;
}

export function issueId(appKey: string, fingerprint: string): string {
  return `${appKey}:${fingerprint}`;
}

/**
 * Splits `<appKey>:<fingerprint>` at the first colon (app keys hold none). The rest must hold a colon, as every
 * fingerprint does (`<errorType>:<hash>`); which fingerprint exists is the database's to say.
 */
export function parseIssueId(id: string): { appKey: string; fingerprint: string } | null {
  const colon = id.indexOf(':');
  if (colon <= 0) return null;
  const fingerprint = id.slice(colon + 1);
  if (!fingerprint.includes(':')) return null;
  return { appKey: id.slice(0, colon), fingerprint };
}

/**
 * Position after the last issue of a page, in the list's order: the sort key descending, then appKey and fingerprint
 * descending. The sort travels with it, so a cursor is never read in another order than the one that made it.
 */
export interface IssueCursor {
  sort: IssueSort;
  /** The last issue's sort key: lastSeenAt, firstSeenAt, eventCount or userCount. */
  value: number;
  appKey: string;
  fingerprint: string;
}

/** Position after the last event of an issue's page of events (newest first: timestamp, then eventId, descending). */
export interface EventCursor {
  timestamp: number;
  eventId: string;
}

const cursorText = (max: number) => z.string().min(1).max(max).refine(isStorableText);
const issueCursorSchema = z.tuple([z.enum(issueSorts), z.int().min(0), cursorText(128), cursorText(200)]);
const eventCursorSchema = z.tuple([z.int(), cursorText(80)]);

function toBase64Url(text: string): string {
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The JSON behind an opaque cursor, or undefined when the text is not one. */
function cursorJson(text: string): unknown {
  if (!/^[A-Za-z0-9_-]{1,600}$/.test(text)) return undefined;
  try {
    return JSON.parse(atob(text.replace(/-/g, '+').replace(/_/g, '/')));
  } catch {
    return undefined;
  }
}

export function encodeCursor(cursor: IssueCursor): string {
  return toBase64Url(JSON.stringify([cursor.sort, cursor.value, cursor.appKey, cursor.fingerprint]));
}

export function decodeCursor(text: string): IssueCursor | null {
  const parsed = issueCursorSchema.safeParse(cursorJson(text));
  if (!parsed.success) return null;
  const [sort, value, appKey, fingerprint] = parsed.data;
  return { sort, value, appKey, fingerprint };
}

export function encodeEventCursor(cursor: EventCursor): string {
  return toBase64Url(JSON.stringify([cursor.timestamp, cursor.eventId]));
}

export function decodeEventCursor(text: string): EventCursor | null {
  const parsed = eventCursorSchema.safeParse(cursorJson(text));
  if (!parsed.success) return null;
  const [timestamp, eventId] = parsed.data;
  return { timestamp, eventId };
}

export interface OverviewTotals {
  events: number;
  errors: number;
  failedRequests: number;
  affectedUsers: number;
  issues: number;
}
