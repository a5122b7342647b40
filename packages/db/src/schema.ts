// Table types. Timestamps are ms since epoch in int8 columns; both backends return int8 as number (see connection.ts).
import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';
import type { StoredEvent } from '@collector/domain';

export interface UsersTable {
  id: string;
  email: string;
  password_hash: string;
  created_at: number;
}

export interface SessionsTable {
  /** SHA-256 (hex) of the token: the token itself is never stored. */
  id: string;
  user_id: string;
  created_at: number;
  expires_at: number;
  absolute_expires_at: number;
}

export interface AppsTable {
  app_key: string;
  user_id: string;
  name: string;
  type: string;
  created_at: number;
}

/** Running totals per app, kept in the ingesting transaction so the overview never scans events. */
export interface AppTotalsTable {
  app_key: string;
  events: Generated<number>;
  errors: Generated<number>;
  failed_requests: Generated<number>;
  issues: Generated<number>;
  users: Generated<number>;
}

export interface EventsTable {
  app_key: string;
  event_id: string;
  fingerprint: string;
  type: string;
  timestamp: number;
  received_at: number;
  anonymous_id: string | null;
  payload: ColumnType<StoredEvent, string, string>;
}

export interface IssuesTable {
  app_key: string;
  fingerprint: string;
  message: string;
  error_type: string;
  event_count: number;
  user_count: Generated<number>;
  first_seen_at: number;
  last_seen_at: number;
}

/** Distinct anonymous ids per issue and per app: inserting with ON CONFLICT DO NOTHING tells which are new. */
export interface IssueUsersTable {
  app_key: string;
  fingerprint: string;
  anonymous_id: string;
}

export interface AppUsersTable {
  app_key: string;
  anonymous_id: string;
}

/** Events per app and UTC hour (hour_start: ms, a multiple of 3,600,000). */
export interface AppHourlyTable {
  app_key: string;
  hour_start: number;
  events: number;
  errors: number;
  failed_requests: number;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  apps: AppsTable;
  app_totals: AppTotalsTable;
  events: EventsTable;
  issues: IssuesTable;
  issue_users: IssueUsersTable;
  app_users: AppUsersTable;
  app_hourly: AppHourlyTable;
}

export type UserRow = Selectable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;
export type AppRow = Selectable<AppsTable>;
export type NewApp = Insertable<AppsTable>;
export type IssueRow = Selectable<IssuesTable>;

/** The handle query functions take: the database or a transaction on it. */
export type Db = import('kysely').Kysely<Database>;
