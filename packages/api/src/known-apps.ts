// Which app keys exist, remembered: ingestion asks on every batch, and an app, once created, never goes away
// (there is no delete). Only positive answers are kept, so a key created a moment ago is found at once.
import { appExists, type Db, findAppByProjectId } from '@collector/db';

const CAPACITY = 100_000;

/** The app a Sentry DSN's project id names, with the public key that must come with it. */
export interface SentryProject {
  appKey: string;
  publicKey: string;
}

export class KnownApps {
  private readonly known = new Set<string>();
  private readonly projects = new Map<number, SentryProject>();

  constructor(private readonly db: Db) {}

  async exists(appKey: string): Promise<boolean> {
    if (this.known.has(appKey)) return true;
    if (!(await appExists(this.db, appKey))) return false;
    // Bounded: past capacity start over rather than grow; a miss only costs one lookup.
    if (this.known.size >= CAPACITY) this.known.clear();
    this.known.add(appKey);
    return true;
  }

  /** Project ids and keys never change either, so they are remembered the same way. */
  async project(projectId: number): Promise<SentryProject | undefined> {
    const cached = this.projects.get(projectId);
    if (cached) return cached;
    const row = await findAppByProjectId(this.db, projectId);
    if (!row) return undefined;
    if (this.projects.size >= CAPACITY) this.projects.clear();
    const project = { appKey: row.app_key, publicKey: row.public_key };
    this.projects.set(projectId, project);
    return project;
  }
}
