// Table types. Timestamps are ms since epoch in int8 columns; both backends return int8 as number (see connection.ts).

import type { AlertChannel, StoredPayload } from '@collector/domain';
import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

export interface UsersTable {
  id: string;
  email: string;
  /** No longer read (passwords are in user_passwords since migration 0018); null for users made since. */
  password_hash: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: number;
  /** The organization made for the user at registration (or by migration 0018). */
  own_org_id: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A password: one way of signing in, kept apart from the user (others, such as SSO, can sit beside it). */
export interface UserPasswordsTable {
  user_id: string;
  /** argon2id, PHC string. */
  hash: string;
  updated_at: number;
}

export interface OrganizationsTable {
  id: string;
  slug: string;
  name: string;
  created_at: number;
}

export interface MembershipsTable {
  org_id: string;
  user_id: string;
  role: string;
  created_at: number;
}

/** A user token (user_id) or an organization's token (org_id); only the SHA-256 of its value is stored. */
export interface ApiTokensTable {
  id: string;
  hash: string;
  name: string;
  user_id: string | null;
  org_id: string | null;
  created_by: string | null;
  scopes: ColumnType<string[], string, string>;
  created_at: number;
  last_used_at: number | null;
  expires_at: number | null;
}

export interface InvitationsTable {
  id: string;
  /** SHA-256 of the token in the invitation's link. */
  hash: string;
  org_id: string;
  email: string;
  role: string;
  created_by: string | null;
  created_at: number;
  expires_at: number;
}

export interface PasswordResetsTable {
  /** SHA-256 of the token in the reset link. */
  hash: string;
  user_id: string;
  created_at: number;
  expires_at: number;
}

export interface AuditLogTable {
  id: Generated<number>;
  org_id: string;
  action: string;
  actor: string;
  target: string;
  at: number;
}

export interface IssueAssigneesTable {
  app_key: string;
  fingerprint: string;
  user_id: string;
  assigned_at: number;
}

/** What people did to an issue (status changes, assignments, comments); not the write path's active hours. */
export interface IssueHistoryTable {
  id: Generated<number>;
  app_key: string;
  fingerprint: string;
  type: string;
  actor_id: string | null;
  data: ColumnType<Record<string, unknown>, string, string>;
  at: number;
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
  /** The key in the app's Sentry DSN: 32 lowercase hex characters, random, unique. */
  public_key: string;
  /** The project id in the app's Sentry DSN: a positive integer from an identity sequence, unique. */
  project_id: Generated<number>;
  /** Null only for rows inserted by hand without one (fixtures): the API always sets it. */
  org_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Unique within the organization, never all digits (Sentry's project slug). Null as org_id is. */
  slug: ColumnType<string | null, string | null | undefined, string | null>;
}

/**
 * Running totals per app, kept in the ingesting transaction so the overview never scans events. Like every summed
 * counter (counters.ts), `app_totals` is a view: `app_totals_folded` plus the unfolded `app_totals_deltas`.
 */
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
  payload: ColumnType<StoredPayload, string, string>;
}

/**
 * Every event id seen, kept at least 30 days after its event's timestamp (longer while the event may still be stored),
 * even once the payload is deleted: the write path's deduplication (events is partitioned and cannot keep ids unique).
 */
export interface EventIdsTable {
  app_key: string;
  event_id: string;
  /** UTC day of the event's timestamp (ms / 86,400,000). */
  day: number;
}

/** Events deleted by retention or the cap per issue, per app and UTC minute of their timestamp (ms / 60,000). */
export interface DeletedEventMinutesTable {
  app_key: string;
  minute: number;
  events: number;
  errors: number;
  failed_requests: number;
}

/** What happened to the events an app sent, per UTC hour of receipt. */
export interface OutcomesTable {
  app_key: string;
  hour_start: number;
  reason: string;
  events: number;
}

/** Each issue's event_count when its payloads were last cut to MAX_EVENTS_PER_ISSUE, and that cap. */
export interface IssuePayloadTrimsTable {
  app_key: string;
  fingerprint: string;
  event_count: number;
  max_events: number;
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
  status: Generated<string>;
  status_changed_at: number | null;
  regressed_at: number | null;
  /** Whether the write path's last update of the row reopened a resolved issue (what its RETURNING reports). */
  regressed_by_last_write: Generated<boolean>;
  culprit: string | null;
  level: Generated<string>;
  last_release: string | null;
  /** The event type of the issue's first event: error or request. */
  type: Generated<string>;
  /** lower(message, errorType and culprit, a line each): what the list's search reads. */
  search_text: Generated<string>;
  /** The grouping version that made the fingerprint (migration 0020); null: the client's own fingerprint. */
  grouping_version: number | null;
}

/** Events per issue and UTC day (day: ms / 86,400,000), for the issue's chart. */
export interface IssueDaysTable {
  app_key: string;
  fingerprint: string;
  day: number;
  events: number;
}

/** An issue's events by release, environment and user agent ('' for none): its breakdown (a counter, counters.ts). */
export interface IssueContextsTable {
  app_key: string;
  fingerprint: string;
  release: string;
  environment: string;
  user_agent: string;
  events: number;
}

/**
 * An app's events by the release they name (migration 0027; a counter, counters.ts): events, issues whose first event
 * named it, its first and last event (ms; null in a delta of new issues only).
 */
export interface AppReleasesTable {
  app_key: string;
  release: string;
  events: number;
  new_issues: number;
  first_seen: number | null;
  last_seen: number | null;
}

/** An issue's events by tag value (migration 0020): its own tags and the derived ones (domain tagsOf). */
export interface IssueTagsTable {
  app_key: string;
  fingerprint: string;
  key: string;
  value: string;
  events: number;
}

/** An issue's counts that one write statement added, not yet folded into its row (counters.ts). */
export interface IssueDeltasTable {
  app_key: string;
  fingerprint: string;
  events: number;
  users: number;
  first_seen: number;
  last_seen: number;
  level: string | null;
  last_release: string | null;
}

/**
 * The values each issue has been seen with, by facet, for the issue list's filters and search: 'release',
 * 'environment', 'handled' (yes/no), and 'tag:<key>' for every tag counted (migration 0020).
 */
export interface IssueFacetsTable {
  app_key: string;
  facet: string;
  value: string;
  fingerprint: string;
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
  /** The user's recent active UTC hours (ms / HOUR) in this app, ascending: the last 32 days' and the one before. */
  hours: Generated<number[]>;
}

/** What an activity row follows: an app's user (subject: its anonymous id) or an issue (subject: its fingerprint). See migration 0003. */
export type ActivityKind = 'user' | 'issue';

/** One row per subject and active UTC hour, linked to the subject's active hour before it (-1 for none). */
export interface ActivityHoursTable {
  app_key: string;
  kind: ActivityKind;
  subject: string;
  hour: number;
  prev_hour: number;
}

/** Those links counted per day of the hour and per day of the hour before (-1 for none). */
export interface ActivityByPrevDayTable {
  app_key: string;
  kind: ActivityKind;
  day: number;
  prev_day: number;
  links: number;
}

/** Those links counted per hour and per day of the hour before (-1 for none). */
export interface ActivityByHourTable {
  app_key: string;
  kind: ActivityKind;
  hour: number;
  prev_day: number;
  links: number;
}

/** An issue's recent active hours (as app_users.hours for a user). */
export interface IssueHoursTable {
  app_key: string;
  fingerprint: string;
  hours: number[];
}

/** Distinct anonymous ids over all of an organization's apps, and in how many of them each was seen (migration 0019). */
export interface OrgUsersTable {
  org_id: string;
  anonymous_id: string;
  apps: number;
}

/** An organization's distinct users: a counter of the ledger (counters.ts). */
export interface OrgTotalsTable {
  org_id: string;
  users: number;
}

/** Events per app and UTC hour (hour_start: ms, a multiple of HOUR). */
export interface AppHourlyTable {
  app_key: string;
  hour_start: number;
  events: number;
  errors: number;
  failed_requests: number;
}

/** An alert rule of an app. channel: `{ type: 'webhook', url }` or `{ type: 'email', to }`. */
export interface AlertsTable {
  id: string;
  app_key: string;
  trigger: string;
  spike_events: number | null;
  spike_minutes: number | null;
  channel: ColumnType<AlertChannel, string, string>;
  secret: string;
  created_at: number;
}

/** The outbox: a row per alert to deliver (rule, issue, trigger), then the record of its delivery. */
export interface AlertDeliveriesTable {
  id: string;
  alert_id: string;
  app_key: string;
  /** Null for "send a test". */
  fingerprint: string | null;
  trigger: string;
  status: Generated<string>;
  attempts: Generated<number>;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
  next_attempt_at: number;
  leased_until: number | null;
}

/** Events per issue and minute of receipt (ms / 60,000), kept for apps with a spike rule. */
export interface IssueMinutesTable {
  app_key: string;
  fingerprint: string;
  minute: number;
  events: number;
}

/** Events per issue and minute of receipt that the counter fold has not added to issue_minutes yet (counters.ts). */
export interface IssueMinuteDeltasTable {
  app_key: string;
  fingerprint: string;
  minute: number;
  events: number;
  received_at: number;
}

export interface AlertSpikesTable {
  alert_id: string;
  fingerprint: string;
  fired_at: number;
  window_ms: number;
}

/** User feedback (migration 0021): about an event (event_id), linked to its issue once known (fingerprint). */
export interface FeedbackTable {
  id: Generated<number>;
  app_key: string;
  kind: string;
  source_id: string;
  event_id: string | null;
  fingerprint: string | null;
  name: string | null;
  email: string | null;
  message: string;
  url: string | null;
  received_at: number;
}

/** Releases, deploys and source-map artifacts (migration 0022, issue 22). */
export interface ReleasesTable {
  org_id: string;
  version: string;
  ref: string | null;
  url: string | null;
  created_at: number;
  date_started: number | null;
  date_released: number | null;
}

export interface ReleaseAppsTable {
  org_id: string;
  version: string;
  app_key: string;
}

export interface DeploysTable {
  id: string;
  org_id: string;
  version: string;
  environment: string;
  name: string | null;
  url: string | null;
  date_started: number | null;
  date_finished: number;
}

/** A chunk as uploaded, uncompressed, named by its SHA-1 (hex). */
export interface UploadChunksTable {
  org_id: string;
  checksum: string;
  data: Buffer;
  created_at: number;
}

export interface ArtifactBundlesTable {
  id: string;
  org_id: string;
  /** The SHA-1 (hex) of the whole ZIP, as `assemble` names it. */
  checksum: string;
  state: 'created' | 'assembling' | 'ok' | 'error';
  detail: string | null;
  release: string | null;
  dist: string | null;
  /** The chunks' checksums, in order. */
  chunks: ColumnType<string[], string, string>;
  size: Generated<number>;
  file_count: Generated<number>;
  created_at: number;
  last_used_at: number;
}

/** One file of a bundle's manifest: `url` as given (`~/app.min.js`), `type` as Sentry names it, its headers. */
export interface ArtifactFilesTable {
  bundle_id: string;
  org_id: string;
  path: string;
  url: string;
  type: string;
  /** The `debug-id` header, lowercase and hyphenated. */
  debug_id: string | null;
  /** The `sourcemap` header: the map's URL, relative to this file's. */
  sourcemap: string | null;
  content: Buffer;
  size: number;
}

/** A fingerprint that means another's issue (migration 0023): recorded when an issue took an event by its previous one. */
export interface FingerprintAliasesTable {
  app_key: string;
  fingerprint: string;
  issue_fingerprint: string;
  created_at: number;
}

export interface Database {
  users: UsersTable;
  user_passwords: UserPasswordsTable;
  organizations: OrganizationsTable;
  memberships: MembershipsTable;
  api_tokens: ApiTokensTable;
  invitations: InvitationsTable;
  password_resets: PasswordResetsTable;
  audit_log: AuditLogTable;
  issue_assignees: IssueAssigneesTable;
  issue_history: IssueHistoryTable;
  sessions: SessionsTable;
  apps: AppsTable;
  app_totals: AppTotalsTable;
  app_totals_folded: AppTotalsTable;
  app_totals_deltas: AppTotalsTable;
  events: EventsTable;
  event_ids: EventIdsTable;
  deleted_event_minutes: DeletedEventMinutesTable;
  outcomes: OutcomesTable;
  outcomes_folded: OutcomesTable;
  outcomes_deltas: OutcomesTable;
  issue_payload_trims: IssuePayloadTrimsTable;
  issues: IssuesTable;
  /** issues with the counts not yet folded into them added: what readers read (migration 0017). */
  issues_live: IssuesTable;
  issue_deltas: IssueDeltasTable;
  app_releases: AppReleasesTable;
  app_releases_folded: AppReleasesTable;
  app_releases_deltas: AppReleasesTable;
  issue_contexts: IssueContextsTable;
  issue_contexts_folded: IssueContextsTable;
  issue_contexts_deltas: IssueContextsTable;
  issue_tags: IssueTagsTable;
  issue_tags_folded: IssueTagsTable;
  issue_tags_deltas: IssueTagsTable;
  issue_users: IssueUsersTable;
  /** (issue, user) pairs a write statement could not claim, until the fold moves them (migration 0028). */
  issue_users_pending: IssueUsersTable;
  issue_days: IssueDaysTable;
  issue_days_folded: IssueDaysTable;
  issue_days_deltas: IssueDaysTable;
  issue_facets: IssueFacetsTable;
  app_users: AppUsersTable;
  app_hourly: AppHourlyTable;
  app_hourly_folded: AppHourlyTable;
  app_hourly_deltas: AppHourlyTable;
  activity_hours: ActivityHoursTable;
  activity_by_prev_day: ActivityByPrevDayTable;
  activity_by_prev_day_folded: ActivityByPrevDayTable;
  activity_by_prev_day_deltas: ActivityByPrevDayTable;
  activity_by_hour: ActivityByHourTable;
  activity_by_hour_folded: ActivityByHourTable;
  activity_by_hour_deltas: ActivityByHourTable;
  issue_hours: IssueHoursTable;
  org_users: OrgUsersTable;
  org_totals: OrgTotalsTable;
  org_totals_folded: OrgTotalsTable;
  org_totals_deltas: OrgTotalsTable;
  alerts: AlertsTable;
  alert_deliveries: AlertDeliveriesTable;
  issue_minutes: IssueMinutesTable;
  issue_minute_deltas: IssueMinuteDeltasTable;
  alert_spikes: AlertSpikesTable;
  feedback: FeedbackTable;
  releases: ReleasesTable;
  release_apps: ReleaseAppsTable;
  deploys: DeploysTable;
  upload_chunks: UploadChunksTable;
  artifact_bundles: ArtifactBundlesTable;
  artifact_files: ArtifactFilesTable;
  fingerprint_aliases: FingerprintAliasesTable;
}

export type UserRow = Selectable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;
export type AppRow = Selectable<AppsTable>;
export type NewApp = Insertable<AppsTable>;
export type IssueRow = Selectable<IssuesTable>;
export type AlertRow = Selectable<AlertsTable>;
export type AlertDeliveryRow = Selectable<AlertDeliveriesTable>;

/** The handle query functions take: the database or a transaction on it. */
export type Db = import('kysely').Kysely<Database>;
