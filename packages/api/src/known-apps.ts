// Which app keys exist, remembered: ingestion asks on every batch, and an app, once created, never goes away
// (there is no delete). Only positive answers are kept, so a key created a moment ago is found at once.
import { appExists, type Db } from '@collector/db';

const CAPACITY = 100_000;

export class KnownApps {
  private readonly known = new Set<string>();

  constructor(private readonly db: Db) {}

  async exists(appKey: string): Promise<boolean> {
    if (this.known.has(appKey)) return true;
    if (!(await appExists(this.db, appKey))) return false;
    // Bounded: past capacity start over rather than grow; a miss only costs one lookup.
    if (this.known.size >= CAPACITY) this.known.clear();
    this.known.add(appKey);
    return true;
  }
}
