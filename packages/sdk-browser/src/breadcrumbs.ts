// Breadcrumbs: what happened in the page before an event, kept in a fixed-size ring.
import { eventFieldChars, limits } from '@collector/domain/limits';
import type { Breadcrumb } from './event';
import { truncate } from './event';

/** The server takes at most 100 per event; more would reject the whole event. */
export const MAX_BREADCRUMBS = limits.breadcrumbs;

/** Breadcrumb data is the page's own object: copied, and dropped when it cannot travel (cycles, BigInt, huge, deep). */
const DATA_MAX_CHARS = 2048;
const DATA_MAX_DEPTH = 8;

function depthOf(value: unknown, limit: number): number {
  if (typeof value !== 'object' || value === null) return 0;
  if (limit <= 0) return 1;
  let deepest = 0;
  for (const child of Object.values(value)) deepest = Math.max(deepest, depthOf(child, limit - 1));
  return deepest + 1;
}

function copyData(data: unknown): Record<string, unknown> | undefined {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  try {
    const json = JSON.stringify(data);
    if (json.length > DATA_MAX_CHARS) return undefined;
    const copy = JSON.parse(json) as Record<string, unknown>;
    return depthOf(copy, DATA_MAX_DEPTH + 1) > DATA_MAX_DEPTH ? undefined : copy;
  } catch {
    return undefined;
  }
}

/** A breadcrumb within the server's limits (category <= 64, level <= 16), with a timestamp. The server keeps 2 KiB of a message; 1,024 characters keeps a beacon small. */
export function normalizeBreadcrumb(crumb: Breadcrumb, now: number): Breadcrumb {
  const normalized: Breadcrumb = {
    timestamp: typeof crumb.timestamp === 'number' && Number.isFinite(crumb.timestamp) ? crumb.timestamp : now,
  };
  if (typeof crumb.category === 'string')
    normalized.category = truncate(crumb.category, eventFieldChars.breadcrumbCategory);
  if (typeof crumb.message === 'string') normalized.message = truncate(crumb.message, 1024);
  if (typeof crumb.level === 'string') normalized.level = truncate(crumb.level, eventFieldChars.breadcrumbLevel);
  const data = copyData(crumb.data);
  if (data) normalized.data = data;
  return normalized;
}

/** Oldest are overwritten first; memory stays at `capacity` entries however long the page lives. */
export class BreadcrumbRing {
  private readonly items: Breadcrumb[] = [];
  private next = 0;
  readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = Math.max(0, Math.min(MAX_BREADCRUMBS, Math.floor(capacity)));
  }

  add(crumb: Breadcrumb): void {
    if (this.capacity === 0) return;
    if (this.items.length < this.capacity) this.items.push(crumb);
    else this.items[this.next] = crumb;
    this.next = (this.next + 1) % this.capacity;
  }

  /** Oldest first, as a copy: the event keeps what was true when it was captured. */
  snapshot(): Breadcrumb[] {
    if (this.items.length < this.capacity) return this.items.slice();
    return this.items.slice(this.next).concat(this.items.slice(0, this.next));
  }

  get size(): number {
    return this.items.length;
  }
}
